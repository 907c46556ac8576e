package http

// contractFeatures are the capabilities whose routes the published contract lists: every one
// a build can serve, so the generated clients (sdk/) cover every route a deployment may turn
// on. A deployment's own GET /v1/openapi.json lists only what it serves.
var contractFeatures = []string{"offrampPayments", "pendingClaims", "operatorReview", "cards", "treasury", "ramps", "invoices"}

// Document builds the OpenAPI document of every route a build can serve, without a database or
// any service: `corridor openapi` prints it and `make sdk` generates the clients from it.
// version is the build's (info.version).
func Document(version string) map[string]any {
	features := map[string]bool{}
	for _, f := range contractFeatures {
		features[f] = true
	}
	s := &Server{cfg: Config{Capabilities: CapabilitiesConfig{Features: features}, Version: version}}
	return buildOpenAPI(s.endpointTable(s.newHandlers(Deps{})), version)
}
