package http

import "github.com/corridorhq/corridor/core/auth"

// safePaymentEndpoints are the routes of Safe payments (docs/api.md Endpoints, Safe payments). POST
// /v1/payments and GET /v1/payments/{id} are shared with the checkout surface: secondary serves
// a checkout body or a chk_ id.
func (h *safePaymentsHandlers) safePaymentEndpoints(secondary secondaryPayments) []Endpoint {
	pathID := []Param{{Name: "id", In: "path"}}
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	create := []auth.Scope{auth.ScopePaymentsCreate}
	return []Endpoint{
		{Method: "POST", Path: "/v1/payments", Summary: "Propose a USDC payment from a DEPLOYED wallet; returns the safeTxHash owners sign. A secondary-shaped body (amount as a number, currency, cryptocurrency, customer) creates a hosted checkout instead (docs/checkout.md)", Tag: "payments",
			Auth: authRequired, Scopes: create, Request: OneObject{safePaymentCreateRequest{}, checkoutCreateRequest{}}, SecondaryBody: isSecondaryPaymentBody,
			Responses: map[int]any{201: OneOf{safePaymentResponse{}, checkoutCreateResponse{}}, 400: Envelope{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 503: Envelope{}}, Prepare: eitherBody(h.createSafePayment, secondary.create)},
		{Method: "POST", Path: "/v1/wallets/{id}/transactions", Summary: "Propose an arbitrary Safe transaction (a CALL of to with value and data) as a payment of kind transaction; sign, execute and cancel it with the payment routes. A USDC transfer in data is gated as a payment of its amount to its recipient; a custodial wallet accepts nothing else (422 CUSTODY_CALL_REFUSED)", Tag: "payments",
			Auth: authRequired, Scopes: create, Params: pathID, Request: safeTransactionRequest{},
			Responses: map[int]any{201: safePaymentResponse{}, 400: Envelope{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 503: Envelope{}}, Prepare: h.createSafeTransaction},
		{Method: "GET", Path: "/v1/payments", Summary: "List payments, newest first", Tag: "payments",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsRead}, Params: paging,
			Responses: map[int]any{200: safePaymentListResponse{}}, Handler: h.listSafePayments},
		{Method: "GET", Path: "/v1/payments/{id}", Summary: "A payment; a checkout id (chk_…) answers the secondary checkout shape (docs/checkout.md)", Tag: "payments",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsRead}, Params: pathID, SecondaryByID: true,
			Responses: map[int]any{200: OneOf{safePaymentResponse{}, checkoutResponse{}}, 404: Envelope{}}, Handler: eitherCheckoutID(h.getSafePayment, secondary.get)},
		{Method: "POST", Path: "/v1/payments/{id}/sign", Summary: "Add an owner's raw secp256k1 signature over safeTxHash (v 27/28, no prefix); the threshold signature auto-executes", Tag: "payments",
			Auth: authRequired, Scopes: create, Params: pathID, Request: safePaymentSignRequest{},
			Responses: map[int]any{200: safePaymentResponse{}, 400: Envelope{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 429: Envelope{}, 503: Envelope{}}, Prepare: h.signSafePayment},
		{Method: "POST", Path: "/v1/payments/{id}/execute", Summary: "Execute a READY_TO_EXECUTE payment through the relayer", Tag: "payments",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsExecute}, Params: pathID, Request: safePaymentOwnerRequest{},
			Responses: map[int]any{200: safePaymentResponse{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 503: Envelope{}}, Prepare: h.executeSafePayment},
		{Method: "POST", Path: "/v1/payments/{id}/cancel", Summary: "Cancel any payment that has not been sent; with later payments queued behind it, a rejection transaction takes its Safe nonce (rejectionPaymentId) so they stay executable", Tag: "payments",
			Auth: authRequired, Scopes: create, Params: pathID, Request: safePaymentOwnerRequest{},
			Responses: map[int]any{200: safePaymentResponse{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 503: Envelope{}}, Prepare: h.cancelSafePayment},
	}
}
