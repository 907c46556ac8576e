package http

import "github.com/corridorhq/corridor/core/auth"

// invoiceEndpoints are the routes of escrow invoices and bills (docs/api.md Endpoints, Invoices;
// docs/architecture.md for the bill paths) and the invoice clock helper. Invoices and bills are
// sandbox only: every route but the public view answers LIVE keys 403 SANDBOX_ONLY.
func (h *invoicesHandlers) invoiceEndpoints() []Endpoint {
	read := []auth.Scope{auth.ScopeInvoicesRead}
	write := []auth.Scope{auth.ScopeInvoicesWrite}
	release := []auth.Scope{auth.ScopeInvoicesRelease}
	pay := []auth.Scope{auth.ScopeInvoicesPay}
	pathID := []Param{{Name: "id", In: "path"}}
	billID := []Param{{Name: "invoiceId", In: "path"}}
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	settle := map[int]any{200: invoiceResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 429: Envelope{}, 503: Envelope{}}
	return []Endpoint{
		{Method: "POST", Path: "/v1/invoices", Summary: "Create a DRAFT escrow invoice: payer, payee and arbiter (default the platform's) are three distinct addresses", Tag: "invoices",
			Auth: authRequired, Scopes: write, Request: invoiceRequest{}, SandboxOnly: true,
			Responses: map[int]any{201: invoiceResponse{}, 400: Envelope{}, 403: Envelope{}}, Handler: h.createInvoice},
		{Method: "GET", Path: "/v1/invoices", Summary: "List invoices, newest first", Tag: "invoices",
			Auth: authRequired, Scopes: read, Params: paging, SandboxOnly: true,
			Responses: map[int]any{200: invoiceListResponse{}, 400: Envelope{}, 403: Envelope{}}, Handler: h.listInvoices},
		{Method: "GET", Path: "/v1/invoices/{id}", Summary: "An invoice", Tag: "invoices",
			Auth: authRequired, Scopes: read, Params: pathID, SandboxOnly: true,
			Responses: map[int]any{200: invoiceResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.getInvoice},
		{Method: "POST", Path: "/v1/invoices/{id}/send", Summary: "Send a DRAFT invoice: provisions its 2-of-3 hold Safe (CREATE2 address usable at once, deployed by a durable job)", Tag: "invoices",
			Auth: authRequired, Scopes: write, Params: pathID, SandboxOnly: true,
			Responses: map[int]any{202: invoiceResponse{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 429: Envelope{}}, Handler: h.sendInvoice},
		{Method: "POST", Path: "/v1/invoices/{id}/deliver", Summary: "Mark a FUNDED invoice DELIVERED, with optional evidence", Tag: "invoices",
			Auth: authRequired, Scopes: write, Params: pathID, Request: invoiceDeliverRequest{}, SandboxOnly: true,
			Responses: map[int]any{200: invoiceResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Handler: h.deliverInvoice},
		{Method: "POST", Path: "/v1/invoices/{id}/release", Summary: "Propose the release payment (hold Safe to payee, amountUsd); two of payer, payee and arbiter sign it; RELEASED when it completes", Tag: "invoices",
			Auth: authRequired, Scopes: release, Params: pathID, Request: invoiceSettleRequest{}, SandboxOnly: true,
			Responses: settle, Prepare: h.releaseInvoice},
		{Method: "POST", Path: "/v1/invoices/{id}/refund", Summary: "Propose the refund payment (the hold Safe's whole balance to the payer); REFUNDED when it completes", Tag: "invoices",
			Auth: authRequired, Scopes: release, Params: pathID, Request: invoiceSettleRequest{}, SandboxOnly: true,
			Responses: settle, Prepare: h.refundInvoice},
		{Method: "POST", Path: "/v1/invoices/{id}/cancel", Summary: "Cancel a DRAFT or SENT invoice before any funds arrive", Tag: "invoices",
			Auth: authRequired, Scopes: write, Params: pathID, SandboxOnly: true,
			Responses: map[int]any{200: invoiceResponse{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}, 503: Envelope{}}, Prepare: h.cancelInvoice},
		{Method: "GET", Path: "/v1/invoices/public/{id}", Public: "the invoice's public view (docs/api.md Authentication 3)", Summary: "Public view of an invoice: amountUsd, status, holdAddress and chainId only", Tag: "invoices",
			Auth: authNone, Params: pathID,
			Responses: map[int]any{200: invoicePublicResponse{}, 404: Envelope{}, 429: Envelope{}}, Handler: h.publicInvoice},
		{Method: "POST", Path: "/v1/sandbox/invoices/{id}/advance", Summary: "TEST only: move the invoice's clock seconds ahead and run the balance poller on it", Tag: "sandbox",
			Auth: authRequired, Scopes: write, Params: pathID, Request: invoiceAdvanceRequest{},
			Responses: map[int]any{200: invoiceResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.advanceInvoice},
		{Method: "POST", Path: "/v1/bills", Summary: "Send a bill signed with an EIP-712 InvoiceAuthorization to another tenant; verified at once (VERIFIED or FAILED with the reason)", Tag: "bills",
			Auth: authRequired, Scopes: write, Request: billRequest{}, SandboxOnly: true,
			Responses: map[int]any{201: billResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.sendBill},
		{Method: "GET", Path: "/v1/bills/inbound", Summary: "Bills sent to this tenant, newest first", Tag: "bills",
			Auth: authRequired, Scopes: read, SandboxOnly: true,
			Params:    append([]Param{{Name: "verification", In: "query", Description: "UNVERIFIED, VERIFIED or FAILED"}}, paging...),
			Responses: map[int]any{200: billListResponse{}, 400: Envelope{}, 403: Envelope{}}, Handler: h.listInboundBills},
		{Method: "GET", Path: "/v1/bills/inbound/{invoiceId}", Summary: "A bill sent to this tenant", Tag: "bills",
			Auth: authRequired, Scopes: read, Params: billID, SandboxOnly: true,
			Responses: map[int]any{200: billResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.getInboundBill},
		{Method: "POST", Path: "/v1/bills/inbound/{invoiceId}/accept", Summary: "Accept a VERIFIED bill: proposes a Safe payment of amountUsd from one of this tenant's wallets to the payee (payerDecision ACCEPTED)", Tag: "bills",
			Auth: authRequired, Scopes: pay, Params: billID, Request: billAcceptRequest{}, SandboxOnly: true,
			Responses: map[int]any{200: billResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 429: Envelope{}, 503: Envelope{}}, Prepare: h.acceptBill},
		{Method: "POST", Path: "/v1/admin/invoices/{id}/arbiter-sign", Public: "operator action, authorized by the operator token (docs/decisions/operations.md), never a tenant credential", Summary: "Operator: the platform arbiter signs the invoice's pending release or refund payment (docs/decisions/invoices.md)", Tag: "admin",
			Auth: authOperator, Params: pathID,
			Responses: map[int]any{200: invoiceResponse{}, 401: Envelope{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 429: Envelope{}, 503: Envelope{}}, Handler: h.arbiterSign},
	}
}
