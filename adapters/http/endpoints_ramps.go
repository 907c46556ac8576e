package http

import "github.com/corridorhq/corridor/core/auth"

// rampEndpoints are the sandbox ramps (docs/api.md Endpoints, Ramps). Ramps are sandbox only: every
// route answers LIVE keys 403 SANDBOX_ONLY.
func (h *rampsHandlers) rampEndpoints() []Endpoint {
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	return []Endpoint{
		{Method: "POST", Path: "/v1/ramps", Summary: "TEST only: a simulated on-ramp (credits the wallet's Safe from the platform test pool and completes immediately: CONFIRMED with txHash) or off-ramp (a Safe payment to the platform liquidation address that owners sign)", Tag: "ramps",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeRampsWrite}, Request: rampRequest{}, SandboxOnly: true,
			Responses: map[int]any{201: rampResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 429: Envelope{}, 503: Envelope{}}, Prepare: h.createRamp, Committed: h.completeRamp},
		{Method: "GET", Path: "/v1/ramps", Summary: "TEST only: list ramps, newest first, with their live status", Tag: "ramps",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeRampsRead}, SandboxOnly: true,
			Params:    append([]Param{{Name: "walletId", In: "query", Description: "only ramps of this wallet"}}, paging...),
			Responses: map[int]any{200: rampListResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.listRamps},
		{Method: "GET", Path: "/v1/ramps/{id}", Summary: "TEST only: a ramp with its live status", Tag: "ramps",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeRampsRead}, Params: []Param{{Name: "id", In: "path"}}, SandboxOnly: true,
			Responses: map[int]any{200: rampResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.getRamp},
	}
}
