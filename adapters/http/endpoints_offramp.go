package http

import "github.com/corridorhq/corridor/core/auth"

// offrampPaymentEndpoints are docs/api.md's off-ramp payment table, the signed provider webhooks
// and the sandbox helpers (docs/decisions/api.md). Served only when the offrampPayments feature is on.
func (h *offrampHandlers) offrampPaymentEndpoints() []Endpoint {
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	pathID := []Param{{Name: "id", In: "path"}}
	read, write := []auth.Scope{auth.ScopeRampsRead}, []auth.Scope{auth.ScopeRampsWrite}
	return []Endpoint{
		{Method: "POST", Path: "/v1/offramp/payments", Summary: "Pay a phone number: resolve, reserve, run the policy composer, quote routes", Tag: "offramp",
			Auth: authRequired, Scopes: write, Request: offrampPaymentCreateRequest{},
			Responses: map[int]any{201: offrampPaymentResponse{}, 400: Envelope{}, 403: Envelope{}, 422: Envelope{}, 429: Envelope{}, 501: Envelope{}, 503: Envelope{}}, Prepare: h.createOfframpPayment},
		{Method: "GET", Path: "/v1/offramp/payments", Summary: "Off-ramp payments the caller sends or receives, newest first", Tag: "offramp",
			Auth: authRequired, Scopes: read, Params: paging,
			Responses: map[int]any{200: offrampPaymentListResponse{}}, Handler: h.listOfframpPayments},
		{Method: "GET", Path: "/v1/offramp/payments/{id}", Summary: "An off-ramp payment (sender or recipient; no quotes)", Tag: "offramp",
			Auth: authRequired, Scopes: read, Params: pathID,
			Responses: map[int]any{200: offrampPaymentResponse{}, 404: Envelope{}}, Handler: h.getOfframpPayment},
		{Method: "GET", Path: "/v1/offramp/payments/{id}/routes", Summary: "The payment's current active quote set", Tag: "offramp",
			Auth: authRequired, Scopes: read, Params: pathID,
			Responses: map[int]any{200: payoutRouteQuotesResponse{}, 404: Envelope{}}, Handler: h.offrampPaymentPayoutRoutes},
		{Method: "POST", Path: "/v1/offramp/payments/{id}/select-route", Summary: "Recipient only: select a route quote of the active set", Tag: "offramp",
			Auth: authRequired, Scopes: write, Params: pathID, Request: payoutRouteSelectRequest{},
			Responses: map[int]any{200: offrampPaymentResponse{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Prepare: h.screenedPayment(h.selectPayoutRoute)},
		{Method: "POST", Path: "/v1/offramp/payments/{id}/confirm", Summary: "Recipient only: confirm the selected route; locks funds (FUNDS_LOCKED)", Tag: "offramp",
			Auth: authRequired, Scopes: write, Params: pathID,
			Responses: map[int]any{200: offrampPaymentResponse{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Prepare: h.screenedPayment(h.confirmOfframpPayment)},
		{Method: "POST", Path: "/v1/offramp/payments/{id}/cancel", Summary: "Sender only, while unfunded: cancel and release the reservation", Tag: "offramp",
			Auth: authRequired, Scopes: write, Params: pathID,
			Responses: map[int]any{200: offrampPaymentResponse{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Handler: h.cancelOfframpPayment},
		{Method: "POST", Path: "/v1/providers/{provider}/webhooks", Public: "payout provider callback, authorized by its HMAC signature", Summary: "Signed payout provider webhook: HMAC-SHA256 over \"<timestamp>.<raw body>\"", Tag: "providers",
			Auth: authNone, Params: []Param{{Name: "provider", In: "path"}},
			Responses: map[int]any{200: providerWebhookResponse{}, 400: Envelope{}, 401: Envelope{}}, Prepare: h.providerWebhook},
		{Method: "POST", Path: "/v1/sandbox/offramp/payments/{id}/expire-quotes", Summary: "TEST only: the payment's active quote set expires now and the payment goes where time would take it: POLICY_CHECK, then a fresh set (or a hold)", Tag: "sandbox",
			Auth: authRequired, Scopes: write, Params: pathID,
			Responses: map[int]any{200: offrampPaymentResponse{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Prepare: h.screenedPayment(h.expireOfframpPaymentQuotes)},
		{Method: "POST", Path: "/v1/sandbox/offramp/payments/{id}/provider-step", Summary: "TEST only: move the payment's payout provider one step (one poll, as a signed webhook)", Tag: "sandbox",
			Auth: authRequired, Scopes: write, Params: pathID,
			Responses: map[int]any{200: offrampPaymentResponse{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Prepare: h.offrampPaymentProviderStep},
	}
}
