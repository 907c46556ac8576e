package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"
)

// endpointTable is every route of the service: the service's own, then each capability's
// handler type's list, in the order Fiber tries them. The OpenAPI document is generated from
// it, and a test checks that Fiber's registered routes and the document agree.
func (s *Server) endpointTable(h handlers) []Endpoint {
	routes := []Endpoint{
		{Method: "GET", Path: "/healthz", Public: "liveness probe for load balancers; says nothing about any tenant", Summary: "Liveness: the process answers", Tag: "service",
			Responses: map[int]any{200: healthResponse{}}, Handler: s.healthz},
		{Method: "GET", Path: "/readyz", Public: "readiness probe for load balancers; says nothing about any tenant", Summary: "Readiness: the database and the job workers answer; otherwise 503 naming the parts that do not (details.checks). A configured chain node that does not answer only makes the answer degraded (200): the routes that need it answer 503 CHAIN_UNAVAILABLE", Tag: "service",
			Responses: map[int]any{200: readinessResponse{}, 503: Envelope{}}, Handler: s.readyz},
		{Method: "GET", Path: "/v1/openapi.json", Public: "the public API contract", Summary: "This OpenAPI document", Tag: "service",
			Responses: map[int]any{200: map[string]any{}}, Handler: s.openapi},
		{Method: "GET", Path: "/v1/capabilities", Public: "self-description; a credential only narrows it to its environment", Summary: "API version, environment, chains and built features", Tag: "service",
			Auth: authOptional, Responses: map[int]any{200: capabilitiesResponse{}}, Handler: s.capabilities},
	}
	routes = append(routes, h.tenancy.endpoints()...)
	routes = append(routes, h.finance.ledgerEndpoints()...)
	routes = append(routes, h.wallets.walletEndpoints()...)
	routes = append(routes, h.faucet.faucetEndpoints()...)
	routes = append(routes, h.wallets.directoryEndpoints()...)
	routes = append(routes, h.wallets.secondaryEndpoints()...)
	routes = append(routes, h.checkout.checkoutEndpoints()...)
	routes = append(routes, h.safePayments.safePaymentEndpoints(h.checkout.secondaryPayments())...)
	routes = append(routes, h.policy.policyEndpoints()...)
	routes = append(routes, h.agents.agentEndpoints()...)
	routes = append(routes, h.recipients.identityEndpoints()...)
	routes = append(routes, h.finance.statusEndpoints()...)
	routes = append(routes, h.recipients.recipientEndpoints()...)
	routes = append(routes, h.requestLogs.endpoints()...)
	features := s.cfg.Capabilities.Features
	if features["treasury"] {
		routes = append(routes, h.treasury.treasuryEndpoints()...)
	}
	// Cards settle through a card spend module: without one the feature is off and its
	// paths answer FEATURE_NOT_AVAILABLE.
	if features["cards"] {
		routes = append(routes, h.cards.cardEndpoints()...)
	}
	if features["ramps"] {
		routes = append(routes, h.ramps.rampEndpoints()...)
	}
	routes = append(routes, h.twoFactor.twoFactorEndpoints()...)
	routes = append(routes, h.webhooks.webhookEndpoints()...)
	if features["invoices"] {
		routes = append(routes, h.invoices.invoiceEndpoints()...)
	}
	if features["offrampPayments"] {
		routes = append(routes, h.offramp.offrampPaymentEndpoints()...)
	}
	if features["pendingClaims"] && features["offrampPayments"] {
		routes = append(routes, h.claims.claimEndpoints()...)
	}
	if features["operatorReview"] && features["offrampPayments"] {
		routes = append(routes, h.offramp.adminEndpoints()...)
	}
	routes = append(routes, h.operator.operatorEndpoints()...)
	for i := range routes {
		if strings.HasPrefix(routes[i].Path, "/v1/sandbox/") {
			routes[i].SandboxOnly = true
		}
	}
	return routes
}

func (s *Server) healthz(c *fiber.Ctx) error { return c.JSON(healthResponse{Status: "ok"}) }
