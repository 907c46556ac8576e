package http

import (
	"context"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/invoices"
	"github.com/corridorhq/corridor/app/operations"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/invoice"
)

// invoicesHandlers serve invoices and bills. The operator's arbiter signature goes through the
// operations capability, which audits it (actor names the operator token); limitAnonymous
// throttles the public invoice read per client IP.
type invoicesHandlers struct {
	svc            *invoices.Service
	arbiter        arbiterSignatures
	actor          operations.Actor
	limitAnonymous func(c *fiber.Ctx) error
}

// arbiterSignatures signs an invoice's settlement as the platform arbiter, audited
// (POST /v1/admin/invoices/{id}/arbiter-sign).
type arbiterSignatures interface {
	ArbiterSign(ctx context.Context, by operations.Actor, id string) (invoice.Invoice, error)
}

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

func (h *invoicesHandlers) createInvoice(c *fiber.Ctx) error {
	var req invoiceRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	in, err := req.input()
	if err != nil {
		return err
	}
	inv, err := h.svc.Create(c.UserContext(), principal(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toInvoice(inv))
}

func (h *invoicesHandlers) listInvoices(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	list, total, err := h.svc.List(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := invoiceListResponse{Invoices: make([]invoiceResponse, len(list)), Total: total}
	for i, inv := range list {
		out.Invoices[i] = toInvoice(inv)
	}
	return c.JSON(out)
}

func (h *invoicesHandlers) getInvoice(c *fiber.Ctx) error {
	inv, err := h.svc.Get(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toInvoice(inv))
}

func (h *invoicesHandlers) sendInvoice(c *fiber.Ctx) error {
	inv, err := h.svc.Send(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(toInvoice(inv))
}

func (h *invoicesHandlers) deliverInvoice(c *fiber.Ctx) error {
	var req invoiceDeliverRequest
	if len(c.Body()) > 0 {
		if err := decodeBody(c, &req); err != nil {
			return err
		}
	}
	inv, err := h.svc.Deliver(c.UserContext(), principal(c), c.Params("id"), req.Evidence)
	if err != nil {
		return err
	}
	return c.JSON(toInvoice(inv))
}

func (h *invoicesHandlers) releaseInvoice(c *fiber.Ctx) (fiber.Handler, error) {
	return h.settleInvoice(c, invoice.Release)
}

func (h *invoicesHandlers) refundInvoice(c *fiber.Ctx) (fiber.Handler, error) {
	return h.settleInvoice(c, invoice.Refund)
}

func (h *invoicesHandlers) settleInvoice(c *fiber.Ctx, kind invoice.Settlement) (fiber.Handler, error) {
	var req invoiceSettleRequest
	if len(c.Body()) > 0 {
		if err := decodeBody(c, &req); err != nil {
			return nil, err
		}
	}
	read, err := h.svc.ReadSettlement(c.UserContext(), principal(c), c.Params("id"), kind, req.OwnerAddress, req.TwofaChallengeID)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		inv, err := h.svc.Settle(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.JSON(toInvoice(inv))
	}, nil
}

func (h *invoicesHandlers) cancelInvoice(c *fiber.Ctx) (fiber.Handler, error) {
	read, err := h.svc.ReadCancel(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		inv, err := h.svc.Cancel(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.JSON(toInvoice(inv))
	}, nil
}

// publicInvoice answers anyone holding the id, rate limited per client IP.
func (h *invoicesHandlers) publicInvoice(c *fiber.Ctx) error {
	if limited := h.limitAnonymous(c); limited != nil {
		return limited
	}
	inv, err := h.svc.Public(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(invoicePublicResponse{AmountUsd: toInvoice(inv).AmountUsd, Status: string(inv.Status),
		HoldAddress: strPtr(inv.HoldAddress), ChainID: inv.ChainID})
}

func (h *invoicesHandlers) advanceInvoice(c *fiber.Ctx) error {
	var req invoiceAdvanceRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	inv, err := h.svc.Advance(c.UserContext(), principal(c), c.Params("id"), req.Seconds)
	if err != nil {
		return err
	}
	return c.JSON(toInvoice(inv))
}

func (h *invoicesHandlers) arbiterSign(c *fiber.Ctx) error {
	inv, err := h.arbiter.ArbiterSign(c.UserContext(), h.actor, strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toInvoice(inv))
}

func (h *invoicesHandlers) sendBill(c *fiber.Ctx) error {
	var req billRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	b, err := h.svc.SendBill(c.UserContext(), principal(c), req.input())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toBill(b))
}

func (h *invoicesHandlers) listInboundBills(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	list, total, err := h.svc.ListInbound(c.UserContext(), principal(c), c.Query("verification"), page)
	if err != nil {
		return err
	}
	out := billListResponse{Bills: make([]billResponse, len(list)), Total: total}
	for i, b := range list {
		out.Bills[i] = toBill(b)
	}
	return c.JSON(out)
}

func (h *invoicesHandlers) getInboundBill(c *fiber.Ctx) error {
	b, err := h.svc.GetInbound(c.UserContext(), principal(c), c.Params("invoiceId"))
	if err != nil {
		return err
	}
	return c.JSON(toBill(b))
}

func (h *invoicesHandlers) acceptBill(c *fiber.Ctx) (fiber.Handler, error) {
	var req billAcceptRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadAccept(c.UserContext(), principal(c), c.Params("invoiceId"), req.WalletID, req.TwofaChallengeID)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		b, err := h.svc.Accept(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.JSON(toBill(b))
	}, nil
}

// invoiceRequest is the body of POST /v1/invoices.
type invoiceRequest struct {
	AmountUsd      string `json:"amountUsd" oas:"required" description:"decimal USD string, at most 6 fraction digits, greater than zero"`
	PayerAddress   string `json:"payerAddress" oas:"required"`
	PayeeAddress   string `json:"payeeAddress" oas:"required"`
	ArbiterAddress string `json:"arbiterAddress,omitempty" description:"default: the platform arbiter; payer, payee and arbiter must be three distinct addresses"`
	PayeeName      string `json:"payeeName,omitempty" oas:"maxLength=200"`
	Description    string `json:"description,omitempty" oas:"maxLength=2000"`
	ChainID        *int64 `json:"chainId,omitempty" description:"default 84532 (the sandbox chain)"`
	// ExpiresAt is decoded as a string and parsed here, so a bad value is refused on its own
	// field with a plain message rather than as the body with Go's time layout.
	ExpiresAt *string `json:"expiresAt,omitempty" oas:"format=date-time" description:"ISO-8601, in the future; a SENT invoice still under-funded then becomes EXPIRED"`
}

func (r invoiceRequest) input() (invoice.DraftInput, error) {
	in := invoice.DraftInput{AmountUsd: r.AmountUsd, PayerAddress: r.PayerAddress, PayeeAddress: r.PayeeAddress,
		ArbiterAddress: r.ArbiterAddress, PayeeName: r.PayeeName, Description: r.Description, ChainID: r.ChainID}
	if r.ExpiresAt != nil {
		at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(*r.ExpiresAt))
		if err != nil {
			return in, core.Invalid("expiresAt", "must be an ISO-8601 timestamp with a time zone, for example 2026-12-31T23:59:59Z")
		}
		in.ExpiresAt = &at
	}
	return in, nil
}

type invoiceResponse struct {
	InvoiceID        string     `json:"invoiceId" oas:"required"`
	PayeeName        string     `json:"payeeName" oas:"required"`
	Description      string     `json:"description" oas:"required"`
	AmountUsd        string     `json:"amountUsd" oas:"required"`
	PayerAddress     string     `json:"payerAddress" oas:"required"`
	PayeeAddress     string     `json:"payeeAddress" oas:"required"`
	ArbiterAddress   string     `json:"arbiterAddress" oas:"required"`
	ChainID          int64      `json:"chainId" oas:"required"`
	Status           string     `json:"status" oas:"required,enum=DRAFT|SENT|FUNDED|DELIVERED|EXPIRED|RELEASED|REFUNDED|CANCELLED"`
	HoldWalletID     *string    `json:"holdWalletId" oas:"required" description:"the 2-of-3 hold Safe (wallet of purpose ESCROW); null until sent"`
	HoldAddress      *string    `json:"holdAddress" oas:"required" description:"where the payer sends USDC; null until sent"`
	ReleasePaymentID *string    `json:"releasePaymentId" oas:"required"`
	RefundPaymentID  *string    `json:"refundPaymentId" oas:"required"`
	Evidence         *string    `json:"evidence" oas:"required" description:"delivery evidence; null when none"`
	ExpiresAt        *time.Time `json:"expiresAt" oas:"required"`
	FundedAt         *time.Time `json:"fundedAt" oas:"required"`
	CreatedAt        time.Time  `json:"createdAt" oas:"required"`
}

func toInvoice(i invoice.Invoice) invoiceResponse {
	return invoiceResponse{InvoiceID: i.ID, PayeeName: i.PayeeName, Description: i.Description, AmountUsd: core.FormatUSD(i.AmountBaseUnits),
		PayerAddress: i.PayerAddress, PayeeAddress: i.PayeeAddress, ArbiterAddress: i.ArbiterAddress, ChainID: i.ChainID,
		Status: string(i.Status), HoldWalletID: strPtr(i.HoldWalletID), HoldAddress: strPtr(i.HoldAddress),
		ReleasePaymentID: strPtr(i.ReleasePaymentID), RefundPaymentID: strPtr(i.RefundPaymentID), Evidence: strPtr(i.Evidence),
		ExpiresAt: i.ExpiresAt, FundedAt: i.FundedAt, CreatedAt: i.CreatedAt}
}

type invoiceListResponse struct {
	Invoices []invoiceResponse `json:"invoices" oas:"required"`
	Total    int               `json:"total" oas:"required"`
}

// invoicePublicResponse is the public view: nothing but these four fields.
type invoicePublicResponse struct {
	AmountUsd   string  `json:"amountUsd" oas:"required"`
	Status      string  `json:"status" oas:"required,enum=DRAFT|SENT|FUNDED|DELIVERED|EXPIRED|RELEASED|REFUNDED|CANCELLED"`
	HoldAddress *string `json:"holdAddress" oas:"required"`
	ChainID     int64   `json:"chainId" oas:"required"`
}

type invoiceDeliverRequest struct {
	Evidence string `json:"evidence,omitempty" oas:"maxLength=4000"`
}

type invoiceSettleRequest struct {
	OwnerAddress     string `json:"ownerAddress,omitempty" description:"who asks: the payer, the payee or the arbiter"`
	TwofaChallengeID string `json:"twofaChallengeId,omitempty" description:"a settlement refused TWOFA_REQUIRED: the SATISFIED challenge, sent with the same request"`
}

type invoiceAdvanceRequest struct {
	Seconds *int64 `json:"seconds" oas:"required" description:"1 to 31622400"`
}

// billRequest is the body of POST /v1/bills.
type billRequest struct {
	ToHandle                string     `json:"toHandle,omitempty" description:"one of toHandle or toAddress: the payer tenant's directory handle"`
	ToAddress               string     `json:"toAddress,omitempty" description:"one of toHandle or toAddress: a wallet address of the payer tenant (the payer of the signed authorization)"`
	AmountUsd               string     `json:"amountUsd" oas:"required"`
	PayeeAddress            string     `json:"payeeAddress" oas:"required"`
	SenderAddress           string     `json:"senderAddress" oas:"required" description:"the address that signed: an active member's signerAddress"`
	Signature               string     `json:"signature" oas:"required" description:"EIP-712 InvoiceAuthorization signature, 0x r ‖ s ‖ v"`
	SigNonce                string     `json:"sigNonce" oas:"required" description:"uint256 as a decimal string, single-use per signer"`
	SigExpiresAt            *time.Time `json:"sigExpiresAt" oas:"required" description:"ISO-8601; signed as unix seconds"`
	PayeeName               string     `json:"payeeName,omitempty" oas:"maxLength=200"`
	Description             string     `json:"description,omitempty" oas:"maxLength=2000"`
	ChainID                 *int64     `json:"chainId,omitempty"`
	SigDocHash              string     `json:"sigDocHash,omitempty" description:"bytes32 sha256 of the terms; default zero"`
	DomainChainID           *int64     `json:"domainChainId,omitempty" description:"default chainId"`
	DomainVerifyingContract string     `json:"domainVerifyingContract,omitempty" description:"default the zero address"`
}

func (r billRequest) input() invoices.BillInput {
	return invoices.BillInput{ToHandle: r.ToHandle, ToAddress: r.ToAddress, AmountUsd: r.AmountUsd, PayeeAddress: r.PayeeAddress,
		SenderAddress: r.SenderAddress, Signature: r.Signature, SigNonce: r.SigNonce, SigExpiresAt: r.SigExpiresAt,
		PayeeName: r.PayeeName, Description: r.Description, SigDocHash: r.SigDocHash, ChainID: r.ChainID,
		DomainChainID: r.DomainChainID, DomainVerifyingContract: r.DomainVerifyingContract}
}

type billResponse struct {
	InvoiceID          string    `json:"invoiceId" oas:"required"`
	AmountUsd          string    `json:"amountUsd" oas:"required"`
	PayerAddress       string    `json:"payerAddress" oas:"required"`
	PayeeAddress       string    `json:"payeeAddress" oas:"required"`
	PayeeName          string    `json:"payeeName" oas:"required"`
	Description        string    `json:"description" oas:"required"`
	ChainID            int64     `json:"chainId" oas:"required"`
	PayerTenantID      string    `json:"payerTenantId" oas:"required"`
	SenderTenantID     string    `json:"senderTenantId" oas:"required"`
	SenderAddress      string    `json:"senderAddress" oas:"required"`
	VerificationStatus string    `json:"verificationStatus" oas:"required,enum=UNVERIFIED|VERIFIED|FAILED" description:"Whether the bill's signature verified against the sender's registered signer (docs/invoices.md); UNVERIFIED is never stored today, since verification is synchronous."`
	VerificationReason *string   `json:"verificationReason" oas:"required" description:"why a bill FAILED: SIGNATURE_INVALID, SIGNER_MISMATCH (wrong key or wrong EIP-712 domain), SIGNER_NOT_ACTIVE_MEMBER, SIGNATURE_EXPIRED, NONCE_REPLAYED; null otherwise"`
	PayerDecision      *string   `json:"payerDecision" oas:"required" description:"ACCEPTED once the payer proposed its payment"`
	PayerPaymentID     *string   `json:"payerPaymentId" oas:"required"`
	SigExpiresAt       time.Time `json:"sigExpiresAt" oas:"required"`
	CreatedAt          time.Time `json:"createdAt" oas:"required"`
}

func toBill(b invoice.Bill) billResponse {
	return billResponse{InvoiceID: b.ID, AmountUsd: core.FormatUSD(b.AmountBaseUnits), PayerAddress: b.PayerAddress,
		PayeeAddress: b.PayeeAddress, PayeeName: b.PayeeName, Description: b.Description, ChainID: b.ChainID,
		PayerTenantID: b.PayerTenantID, SenderTenantID: b.SenderTenantID, SenderAddress: b.SenderAddress,
		VerificationStatus: string(b.VerificationStatus), VerificationReason: strPtr(b.FailureReason),
		PayerDecision: strPtr(b.PayerDecision), PayerPaymentID: strPtr(b.PayerPaymentID), SigExpiresAt: b.SigExpiresAt, CreatedAt: b.CreatedAt}
}

type billListResponse struct {
	Bills []billResponse `json:"bills" oas:"required"`
	Total int            `json:"total" oas:"required"`
}

type billAcceptRequest struct {
	WalletID         string `json:"walletId" oas:"required" description:"the payer's wallet the payment is proposed from"`
	TwofaChallengeID string `json:"twofaChallengeId,omitempty" description:"an acceptance refused TWOFA_REQUIRED: the SATISFIED challenge, sent with the same request"`
}
