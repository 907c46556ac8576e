package http

import "corridor/core/auth"

// paymentRoutes are the routes of Safe payments (SPEC.md Endpoints, Safe payments).
func (s *Server) paymentRoutes() []Route {
	pathID := []Param{{Name: "id", In: "path"}}
	paging := []Param{{Name: "skip", In: "query", Integer: true}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	create := []auth.Scope{auth.ScopePaymentsCreate}
	return []Route{
		{Method: "POST", Path: "/v1/payments", Summary: "Propose a USDC payment from a DEPLOYED wallet; returns the safeTxHash owners sign", Tag: "payments",
			Auth: authRequired, Scopes: create, Request: paymentCreateRequest{},
			Responses: map[int]any{201: paymentResponse{}, 400: Envelope{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 503: Envelope{}}, Handler: s.createPayment},
		{Method: "GET", Path: "/v1/payments", Summary: "List payments, newest first", Tag: "payments",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsRead}, Params: paging,
			Responses: map[int]any{200: paymentListResponse{}}, Handler: s.listPayments},
		{Method: "GET", Path: "/v1/payments/{id}", Summary: "A payment", Tag: "payments",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsRead}, Params: pathID,
			Responses: map[int]any{200: paymentResponse{}, 404: Envelope{}}, Handler: s.getPayment},
		{Method: "POST", Path: "/v1/payments/{id}/sign", Summary: "Add an owner's raw secp256k1 signature over safeTxHash (v 27/28, no prefix); the threshold signature auto-executes", Tag: "payments",
			Auth: authRequired, Scopes: create, Params: pathID, Request: paymentSignRequest{},
			Responses: map[int]any{200: paymentResponse{}, 400: Envelope{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 503: Envelope{}}, Handler: s.signPayment},
		{Method: "POST", Path: "/v1/payments/{id}/execute", Summary: "Execute a READY_TO_EXECUTE payment through the relayer", Tag: "payments",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsExecute}, Params: pathID, Request: paymentOwnerRequest{},
			Responses: map[int]any{200: paymentResponse{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 503: Envelope{}}, Handler: s.executePayment},
		{Method: "POST", Path: "/v1/payments/{id}/cancel", Summary: "Cancel a payment that has not been sent (the wallet's newest queued payment)", Tag: "payments",
			Auth: authRequired, Scopes: create, Params: pathID, Request: paymentOwnerRequest{},
			Responses: map[int]any{200: paymentResponse{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 503: Envelope{}}, Handler: s.cancelPayment},
	}
}
