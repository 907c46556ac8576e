package http

import (
	"context"
	"encoding/hex"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/safepayments"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
)

// safePaymentsHandlers serve Safe payments.
type safePaymentsHandlers struct{ svc *safepayments.Service }

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

// createSafePayment reads the chain first (the Safe's nonce and threshold), outside the
// runner's unit of work, then records the payment inside it.
func (h *safePaymentsHandlers) createSafePayment(c *fiber.Ctx) (fiber.Handler, error) {
	var req safePaymentCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadProposal(c.UserContext(), principal(c), req.request())
	if err != nil {
		return nil, err
	}
	return h.proposeStep(read), nil
}

// createSafeTransaction proposes an arbitrary Safe transaction: read first, then the same
// idempotent propose as a payment.
func (h *safePaymentsHandlers) createSafeTransaction(c *fiber.Ctx) (fiber.Handler, error) {
	var req safeTransactionRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadTransaction(c.UserContext(), principal(c), req.request(strings.TrimSpace(c.Params("id"))))
	if err != nil {
		return nil, err
	}
	return h.proposeStep(read), nil
}

// proposeStep applies a read proposal in the request's unit of work: a payment and an
// arbitrary transaction are proposed alike once read.
func (h *safePaymentsHandlers) proposeStep(read safepayments.ProposalRead) fiber.Handler {
	return func(c *fiber.Ctx) error {
		pay, err := h.svc.Propose(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toSafePayment(pay))
	}
}

func (h *safePaymentsHandlers) listSafePayments(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	payments, total, err := h.svc.List(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := safePaymentListResponse{Payments: make([]safePaymentResponse, len(payments)), Total: total}
	for i, p := range payments {
		out.Payments[i] = toSafePayment(p)
	}
	return c.JSON(out)
}

func (h *safePaymentsHandlers) getSafePayment(c *fiber.Ctx) error {
	pay, err := h.svc.Get(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toSafePayment(pay))
}

// signSafePayment verifies the signature outside the runner's unit of work.
func (h *safePaymentsHandlers) signSafePayment(c *fiber.Ctx) (fiber.Handler, error) {
	return preparedPaymentAction(c, func(ctx context.Context, p auth.Principal, id string, req safePaymentSignRequest) (safepayments.SignatureRead, error) {
		return h.svc.ReadSignature(ctx, p, id, req.Signature)
	}, h.svc.Sign)
}

// executeSafePayment checks the owner and the Safe's nonce outside the runner's unit of work.
func (h *safePaymentsHandlers) executeSafePayment(c *fiber.Ctx) (fiber.Handler, error) {
	return preparedPaymentAction(c, func(ctx context.Context, p auth.Principal, id string, req safePaymentOwnerRequest) (safepayments.ExecutionRead, error) {
		return h.svc.ReadExecution(ctx, p, id, req.OwnerAddress)
	}, h.svc.Execute)
}

// cancelSafePayment checks the optional owner outside the runner's unit of work.
func (h *safePaymentsHandlers) cancelSafePayment(c *fiber.Ctx) (fiber.Handler, error) {
	return preparedPaymentAction(c, func(ctx context.Context, p auth.Principal, id string, req safePaymentOwnerRequest) (safepayments.CancelRead, error) {
		return h.svc.ReadCancel(ctx, p, id, req.OwnerAddress)
	}, h.svc.Cancel)
}

// preparedPaymentAction is the shape of a payment's sign, execute and cancel: decode the body,
// read (and check) outside the runner's unit of work, then apply the read inside it and answer the
// payment.
func preparedPaymentAction[B any, R any](c *fiber.Ctx, read func(context.Context, auth.Principal, string, B) (R, error),
	apply func(context.Context, auth.Principal, R) (safepay.Payment, error)) (fiber.Handler, error) {
	var req B
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	r, err := read(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		return answerSafePayment(c)(apply(c.UserContext(), principal(c), r))
	}, nil
}

// answerSafePayment answers the payment, or the error.
func answerSafePayment(c *fiber.Ctx) func(safepay.Payment, error) error {
	return func(pay safepay.Payment, err error) error {
		if err != nil {
			return err
		}
		return c.JSON(toSafePayment(pay))
	}
}

// Safe payment DTOs (docs/api.md Payment (Safe payment)). amount is a decimal string; safeNonce,
// threshold and signatures are additions that let a client see where a payment stands.

type safePaymentDestinationRequest struct {
	Type     string `json:"type" oas:"required,enum=handle|email|address|wallet"`
	Handle   string `json:"handle,omitempty"`
	Email    string `json:"email,omitempty"`
	Address  string `json:"address,omitempty" oas:"pattern=^0x[0-9a-fA-F]{40}$"`
	ChainID  *int64 `json:"chainId,omitempty"`
	WalletID string `json:"walletId,omitempty"`
}

type safePaymentAmountRequest struct {
	Value string `json:"value" oas:"required" description:"The amount, a decimal string in the asset's unit (at most 6 fraction digits)."`
	Asset string `json:"asset,omitempty" oas:"enum=usdc"`
}

type safePaymentCreateRequest struct {
	SourceWalletID string                         `json:"sourceWalletId" oas:"required"`
	Destination    *safePaymentDestinationRequest `json:"destination" oas:"required" description:"Who is paid: a handle, an email, an address (on the wallet's chain) or another wallet."`
	// Amount is omitempty only so the document does not offer null (null is refused as missing).
	Amount *safePaymentAmountRequest `json:"amount,omitempty" oas:"required" description:"How much to pay."`
	Memo   *string                   `json:"memo,omitempty" oas:"maxLength=500"`
	// TwofaChallengeID redeems a satisfied two-factor challenge bound to this very request.
	TwofaChallengeID *string `json:"twofaChallengeId,omitempty"`
}

func (r safePaymentCreateRequest) request() safepay.Request {
	out := safepay.Request{SourceWalletID: r.SourceWalletID}
	if r.Destination != nil {
		out.Destination = &safepay.DestinationInput{
			Type: r.Destination.Type, Handle: r.Destination.Handle, Email: r.Destination.Email,
			Address: r.Destination.Address, ChainID: r.Destination.ChainID, WalletID: r.Destination.WalletID,
		}
	}
	if r.Amount != nil {
		out.AmountValue, out.AmountAsset = r.Amount.Value, r.Amount.Asset
	}
	if r.Memo != nil {
		out.Memo = *r.Memo
	}
	if r.TwofaChallengeID != nil {
		out.TwofaChallengeID = *r.TwofaChallengeID
	}
	return out
}

type safePaymentSignRequest struct {
	Signature string `json:"signature" oas:"required,pattern=^0x[0-9a-fA-F]{130}$"`
}

type safePaymentOwnerRequest struct {
	OwnerAddress string `json:"ownerAddress,omitempty" oas:"pattern=^0x[0-9a-fA-F]{40}$"`
}

type safePaymentSignatureResponse struct {
	Signer   string    `json:"signer" oas:"required"`
	SignedAt time.Time `json:"signedAt" oas:"required"`
}

type safePaymentResponse struct {
	ID                 string                         `json:"id" oas:"required"`
	SourceWalletID     string                         `json:"sourceWalletId" oas:"required"`
	DestinationType    string                         `json:"destinationType" oas:"required,enum=handle|email|address|wallet" description:"How the destination was given: handle, email, address or wallet; every kind resolves to an address."`
	DestinationHandle  *string                        `json:"destinationHandle" oas:"required" description:"The handle paid (@name) when the destination was a handle; null otherwise."`
	DestinationAddress string                         `json:"destinationAddress" oas:"required"`
	DestinationChainID int64                          `json:"destinationChainId" oas:"required"`
	Asset              string                         `json:"asset" oas:"required,enum=usdc"`
	Amount             string                         `json:"amount" oas:"required"`
	Status             string                         `json:"status" oas:"required,enum=CREATED|AWAITING_SIGNATURE|SIGNING|READY_TO_EXECUTE|EXECUTING|COMPLETED|FAILED|CANCELLED"`
	SafeTxHash         *string                        `json:"safeTxHash" oas:"required"`
	ExecutedTxHash     *string                        `json:"executedTxHash" oas:"required"`
	Memo               *string                        `json:"memo" oas:"required"`
	FailureReason      *string                        `json:"failureReason" oas:"required"`
	CreatedAt          time.Time                      `json:"createdAt" oas:"required"`
	SafeNonce          uint64                         `json:"safeNonce" oas:"required"`
	Threshold          int                            `json:"threshold" oas:"required"`
	Signatures         []safePaymentSignatureResponse `json:"signatures" oas:"required"`
	UpdatedAt          time.Time                      `json:"updatedAt" oas:"required"`
	Kind               string                         `json:"kind" oas:"required,enum=transfer|transaction" description:"transfer: a USDC payment; transaction: a call proposed with POST /v1/wallets/{id}/transactions (amount 0)"`
	Transaction        *safeTransactionResponse       `json:"transaction" oas:"required,nullable" description:"the call of a kind transaction payment; null for a transfer"`
	RejectionPaymentID *string                        `json:"rejectionPaymentId" oas:"required,nullable" description:"On a payment cancelled while later payments were queued behind it: the rejection transaction proposed at its Safe nonce, which the owners sign so the later payments can execute. Null otherwise."`
	RejectsPaymentID   *string                        `json:"rejectsPaymentId" oas:"required,nullable" description:"On a rejection transaction: the cancelled payment whose Safe nonce it uses (a zero-value call of the Safe itself). Null otherwise."`
}

// safeTransactionRequest is a transaction proposal (POST /v1/wallets/{id}/transactions).
type safeTransactionRequest struct {
	To               string  `json:"to" oas:"required,pattern=^0x[0-9a-fA-F]{40}$" description:"the called address"`
	Value            string  `json:"value,omitempty" oas:"pattern=^[0-9]{1,19}$" description:"native coin to send, in wei (decimal string, at most 9223372036854775807); default 0"`
	Data             string  `json:"data,omitempty" oas:"pattern=^0x([0-9a-fA-F]{2})*$" description:"calldata, 0x-prefixed hex; default none"`
	Operation        string  `json:"operation,omitempty" oas:"enum=CALL" description:"CALL only: DELEGATECALL is never proposed through the API"`
	Memo             *string `json:"memo,omitempty" oas:"maxLength=500"`
	TwofaChallengeID *string `json:"twofaChallengeId,omitempty"`
}

func (r safeTransactionRequest) request(walletID string) safepay.TransactionRequest {
	out := safepay.TransactionRequest{WalletID: walletID, To: r.To, Value: r.Value, Data: r.Data, Operation: r.Operation}
	if r.Memo != nil {
		out.Memo = *r.Memo
	}
	if r.TwofaChallengeID != nil {
		out.TwofaChallengeID = *r.TwofaChallengeID
	}
	return out
}

// safeTransactionResponse is the call a payment of kind transaction executes.
type safeTransactionResponse struct {
	To        string `json:"to" oas:"required" description:"The address the Safe calls (0x…, 40 hex digits)."`
	Value     string `json:"value" oas:"required" description:"wei, decimal string"`
	Data      string `json:"data" oas:"required" description:"0x-prefixed hex"`
	Operation string `json:"operation" oas:"required,enum=CALL" description:"How the Safe makes the call: CALL (DELEGATECALL is never proposed)."`
}

type safePaymentListResponse struct {
	Payments []safePaymentResponse `json:"payments" oas:"required"`
	Total    int                   `json:"total" oas:"required"`
}

func toSafePayment(p safepay.Payment) safePaymentResponse {
	sigs := make([]safePaymentSignatureResponse, len(p.Signatures))
	for i, s := range p.Signatures {
		sigs[i] = safePaymentSignatureResponse{Signer: s.Signer, SignedAt: s.SignedAt}
	}
	out := safePaymentResponse{
		ID: p.ID, SourceWalletID: p.SourceWalletID, DestinationType: string(p.DestinationType),
		DestinationHandle: strPtr(p.DestinationHandle), DestinationAddress: p.DestinationAddress,
		DestinationChainID: p.DestinationChainID, Asset: p.Asset, Amount: core.FormatUSD(p.AmountBaseUnits),
		Status: string(p.Status), SafeTxHash: strPtr(p.SafeTxHash), ExecutedTxHash: strPtr(p.ExecutedTxHash),
		Memo: strPtr(p.Memo), FailureReason: strPtr(p.FailureReason), CreatedAt: p.CreatedAt,
		SafeNonce: p.SafeNonce, Threshold: p.Threshold, Signatures: sigs, UpdatedAt: p.UpdatedAt,
		Kind: string(safepay.KindTransfer), Transaction: toSafeTransaction(p.Call),
		RejectionPaymentID: strPtr(p.RejectionPaymentID), RejectsPaymentID: strPtr(p.RejectsPaymentID),
	}
	if p.Call != nil {
		out.Kind = string(safepay.KindTransaction)
	}
	return out
}

func toSafeTransaction(c *safepay.Call) *safeTransactionResponse {
	if c == nil {
		return nil
	}
	return &safeTransactionResponse{To: c.To, Value: c.ValueWei.String(), Data: "0x" + hex.EncodeToString(c.Data), Operation: "CALL"}
}
