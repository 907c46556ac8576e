package http

import "github.com/corridorhq/corridor/core/auth"

// checkoutEndpoints are hosted checkout's own routes (docs/decisions/checkout.md, docs/checkout.md). POST /v1/payments
// and GET /v1/payments/{id} are shared with Safe payments and stay in paymentEndpoints (the
// body's shape, the id's prefix select the surface).
func (h *checkoutHandlers) checkoutEndpoints() []Endpoint {
	chk := []Param{{Name: "id", In: "path", Description: "the checkout's id (chk_…)"}}
	list := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"},
		{Name: "status", In: "query", Description: "created, pending, completed or failed"},
		{Name: "from_date", In: "query", Description: "created at or after: RFC 3339 instant or YYYY-MM-DD"},
		{Name: "to_date", In: "query", Description: "created before: RFC 3339 instant (exclusive) or YYYY-MM-DD (inclusive)"}}
	return []Endpoint{
		{Method: "GET", Path: "/v1/checkouts", Summary: "The merchant's checkouts, newest first, by status and creation date: a list of the primary kind (skip/take, {checkouts, total}, the canonical error envelope)", Tag: "checkout",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsRead}, Params: list,
			Responses: map[int]any{200: checkoutListResponse{}, 400: Envelope{}}, Handler: h.listCheckouts},
		{Method: "POST", Path: "/v1/payments/{id}/refund", Summary: "Secondary: refund a checkout (chk_…) from the merchant's service balance, up to what it received; the USDC goes to the payer", Tag: "checkout",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsExecute}, Params: chk, Request: checkoutRefundRequest{}, SecondaryErrors: true,
			Responses: map[int]any{201: checkoutRefundResponse{}, 404: secondaryErrorResponse{}, 409: secondaryErrorResponse{}, 422: secondaryErrorResponse{}, 503: secondaryErrorResponse{}}, Handler: h.refundCheckout},
		{Method: "GET", Path: "/v1/payments/{id}/refunds", Summary: "Secondary: a checkout's refunds, oldest first", Tag: "checkout",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsRead}, Params: chk, SecondaryErrors: true,
			Responses: map[int]any{200: checkoutRefundListResponse{}, 404: secondaryErrorResponse{}}, Handler: h.listCheckoutRefunds},
		{Method: "POST", Path: "/v1/sandbox/payments/{id}/expire", Summary: "TEST only: a checkout's expires_at becomes now and the watcher reads it at once", Tag: "checkout",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsCreate}, Params: chk, SandboxOnly: true, SecondaryErrors: true,
			Responses: map[int]any{200: checkoutResponse{}, 403: secondaryErrorResponse{}, 404: secondaryErrorResponse{}}, Handler: h.expireCheckout},
		{Method: "POST", Path: "/v1/sandbox/payments/{id}/pay", Summary: "TEST only: pay a checkout as a payer's wallet would (the relayer sends the sandbox test USDC to its deposit address and is its payer; the watcher then sees it)", Tag: "checkout",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsCreate}, Params: chk, Request: checkoutSandboxPayRequest{}, SandboxOnly: true, SecondaryErrors: true,
			Responses: map[int]any{201: checkoutSandboxPayResponse{}, 403: secondaryErrorResponse{}, 404: secondaryErrorResponse{}, 503: secondaryErrorResponse{}}, Prepare: outsideStep(h.sandboxPayCheckout)},
		{Method: "GET", Path: "/pay/{id}", Public: "the hosted payment page: the checkout id is its key", Summary: "The hosted payment page of a checkout (HTML; public: the id is its key); an unknown id or an unavailable chain answers an HTML page too", Tag: "checkout",
			Auth: authNone, Params: chk,
			Responses: map[int]any{200: Content{"text/html": ""}, 404: Content{"text/html": ""}, 503: Content{"text/html": ""}}, Handler: h.checkoutPage},
		{Method: "GET", Path: "/pay/{id}/status", Public: "the payment page's public status: the checkout id is its key", Summary: "The payment page's live status (public; nothing about the merchant or the customer)", Tag: "checkout",
			Auth: authNone, Params: chk,
			Responses: map[int]any{200: checkoutStatusResponse{}, 404: Envelope{}}, Handler: h.checkoutPageStatus},
		{Method: "GET", Path: "/pay/{id}/qr.png", Public: "the payment page's QR code: the checkout id is its key", Summary: "The payment page's QR code (PNG) of the EIP-681 USDC transfer URI", Tag: "checkout",
			Auth: authNone, Params: chk,
			Responses: map[int]any{200: Content{"image/png": ""}, 404: Envelope{}, 503: Envelope{}}, Handler: h.checkoutQR},
		{Method: "GET", Path: checkoutAssetsBase + "/checkout.js", Public: "static asset of the payment page", Summary: "The payment page's script", Tag: "checkout",
			Auth: authNone, Responses: map[int]any{200: Content{"text/javascript": ""}}, Handler: checkoutAsset("checkout.js", "text/javascript; charset=utf-8")},
		{Method: "GET", Path: checkoutAssetsBase + "/checkout.css", Public: "static asset of the payment page", Summary: "The payment page's stylesheet", Tag: "checkout",
			Auth: authNone, Responses: map[int]any{200: Content{"text/css": ""}}, Handler: checkoutAsset("checkout.css", "text/css; charset=utf-8")},
	}
}
