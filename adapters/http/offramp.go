package http

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/offramps"
	"github.com/corridorhq/corridor/app/operations"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/offramp"
)

// offrampHandlers serve off-ramp payments, provider webhooks and the operator's off-ramp
// actions. operator names the operator token in the durable record of a top-up; a review's
// approval goes through the operations capability, which audits it as actor.
type offrampHandlers struct {
	svc      *offramps.Service
	operator string
	reviews  reviewApprovals
	actor    operations.Actor
}

// reviewApprovals approves an off-ramp payment's review holds, audited
// (POST /v1/admin/offramp/payments/{id}/approve-review).
type reviewApprovals interface {
	ApproveReview(ctx context.Context, by operations.Actor, id string) (offramp.Payment, error)
}

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

// adminEndpoints are the operator routes of docs/decisions/operations.md. They authenticate with the configured operator
// token only; a tenant API key or session is never accepted there.
func (h *offrampHandlers) adminEndpoints() []Endpoint {
	pathID := []Param{{Name: "id", In: "path"}}
	return []Endpoint{
		{Method: "POST", Path: "/v1/admin/offramp/payments/{id}/approve-review", Public: "operator action, authorized by the operator token (docs/decisions/operations.md), never a tenant credential", Summary: "Operator: approve a payment's review holds (TRANSACTION_MONITORING_REVIEW, CREDENTIAL_CHANGED_REVIEW_REQUIRED); the policy composer then runs again (docs/decisions/operations.md)", Tag: "admin",
			Auth: authOperator, Params: pathID,
			Responses: map[int]any{200: offrampPaymentResponse{}, 401: Envelope{}, 404: Envelope{}, 409: Envelope{}, 503: Envelope{}}, Handler: h.approveOfframpReview},
		{Method: "POST", Path: "/v1/admin/payout-providers/{provider}/liquidity", Public: "operator action, authorized by the operator token (docs/decisions/operations.md), never a tenant credential", Summary: "Operator: top up a payout provider's route liquidity in one environment, once per reference; payments held INSUFFICIENT_ROUTE_LIQUIDITY are rechecked by the next hold recheck pass (docs/decisions/operations.md)", Tag: "admin",
			Auth: authOperator, Params: []Param{{Name: "provider", In: "path"}}, Request: liquidityTopUpRequest{},
			Responses: map[int]any{200: liquidityResponse{}, 400: Envelope{}, 401: Envelope{}, 404: Envelope{}, 503: Envelope{}}, Handler: h.topUpLiquidity},
	}
}

func (h *offrampHandlers) approveOfframpReview(c *fiber.Ctx) error {
	p, err := h.reviews.ApproveReview(c.UserContext(), h.actor, strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

type liquidityTopUpRequest struct {
	Environment string `json:"environment" oas:"required,enum=TEST|LIVE"`
	AmountUSD   string `json:"amountUsd" oas:"required"`
	// Reference is the operator's id of this top-up: a retry with the same one adds nothing.
	Reference string `json:"reference" oas:"required,maxLength=128"`
}

type liquidityResponse struct {
	Provider    string `json:"provider" oas:"required" description:"The payout provider topped up (lower case)."`
	Environment string `json:"environment" oas:"required"`
	// ConfiguredUSD is PAYOUT_{PROVIDER}_LIQUIDITY_USD ("0": uncapped); LiquidityUSD is it
	// plus every top-up, null when uncapped.
	ConfiguredUSD string  `json:"configuredUsd" oas:"required"`
	ToppedUpUSD   string  `json:"toppedUpUsd" oas:"required"`
	LiquidityUSD  *string `json:"liquidityUsd" oas:"required"`
	Added         bool    `json:"added" oas:"required" description:"Whether this call added liquidity: false for a retry with a reference already recorded."`
}

func (h *offrampHandlers) topUpLiquidity(c *fiber.Ctx) error {
	var req liquidityTopUpRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	amount, err := core.ParseAmount("amountUsd", 6, req.AmountUSD)
	if err != nil {
		return err
	}
	l, err := h.svc.TopUpLiquidity(c.UserContext(), h.operator, core.Environment(strings.TrimSpace(req.Environment)),
		c.Params("provider"), req.Reference, amount)
	if err != nil {
		return err
	}
	out := liquidityResponse{Provider: l.Provider, Environment: string(l.Environment), ConfiguredUSD: core.FormatUSD(l.ConfiguredBaseUnits),
		ToppedUpUSD: core.FormatUSD(l.ToppedUpBaseUnits), Added: l.Added}
	if l.EffectiveBaseUnits > 0 {
		v := core.FormatUSD(l.EffectiveBaseUnits)
		out.LiquidityUSD = &v
	}
	return c.JSON(out)
}

// createOfframpPayment validates the payment and screens its recipient while preparing,
// outside any transaction; intake then runs in the runner's one unit of work.
func (h *offrampHandlers) createOfframpPayment(c *fiber.Ctx) (fiber.Handler, error) {
	var req offrampPaymentCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	prepared, err := h.svc.PrepareCreate(c.UserContext(), principal(c), offramps.CreatePaymentInput{Phone: req.Phone,
		AmountUSD: req.AmountUSD, ChainID: req.ChainID, FundingMode: req.FundingMode,
		RequestedDestinationID: req.RequestedDestinationID, SpeedPreference: req.SpeedPreference})
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		v, err := h.svc.ApplyCreate(c.UserContext(), principal(c), prepared)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toOfframpPaymentCreated(v))
	}, nil
}

// screenedPayment prepares the screening verdict of the payment the path names (a select or
// confirm may find its quote expired and compose the payment again), then applies handler.
func (h *offrampHandlers) screenedPayment(handler fiber.Handler) prepare {
	return func(c *fiber.Ctx) (fiber.Handler, error) {
		if err := h.svc.PreparePaymentFor(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id"))); err != nil {
			return nil, err
		}
		return handler, nil
	}
}

func (h *offrampHandlers) listOfframpPayments(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	ps, total, err := h.svc.ListPayments(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := offrampPaymentListResponse{Payments: make([]offrampPaymentResponse, len(ps)), Total: total}
	for i, p := range ps {
		out.Payments[i] = toOfframpPayment(p)
	}
	return c.JSON(out)
}

func (h *offrampHandlers) getOfframpPayment(c *fiber.Ctx) error {
	p, err := h.svc.GetPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (h *offrampHandlers) offrampPaymentPayoutRoutes(c *fiber.Ctx) error {
	qs, err := h.svc.PayoutRouteQuotes(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(payoutRouteQuotesResponse{Routes: toPayoutRouteQuotes(qs)})
}

func (h *offrampHandlers) selectPayoutRoute(c *fiber.Ctx) error {
	var req payoutRouteSelectRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	p, err := h.svc.SelectPayoutRoute(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), strings.TrimSpace(req.RouteQuoteID))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (h *offrampHandlers) confirmOfframpPayment(c *fiber.Ctx) error {
	p, err := h.svc.ConfirmPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (h *offrampHandlers) cancelOfframpPayment(c *fiber.Ctx) error {
	p, err := h.svc.CancelPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (h *offrampHandlers) expireOfframpPaymentQuotes(c *fiber.Ctx) error {
	p, err := h.svc.ExpireQuotes(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

// offrampPaymentProviderStep is a sandbox helper that polls the provider: the poll leaves the
// process, so the whole step (the poll and the units that record what it reported, as its job
// would) runs while preparing, and the runner's unit only answers the payment.
func (h *offrampHandlers) offrampPaymentProviderStep(c *fiber.Ctx) (fiber.Handler, error) {
	p, err := h.svc.ProviderStep(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error { return c.JSON(toOfframpPayment(p)) }, nil
}

// providerWebhook hands the raw body and its signature headers to the app; the signature is
// over the exact bytes received.
// A webhook is a trigger: the payment's provider is polled (a call that leaves the process)
// and what it reports is recorded in the poll job's own units of work. So the whole step runs
// while preparing, outside any transaction, and the runner's unit only answers.
func (h *offrampHandlers) providerWebhook(c *fiber.Ctx) (fiber.Handler, error) {
	res, err := h.svc.HandleProviderWebhook(c.UserContext(), offramps.ProviderWebhook{Provider: strings.TrimSpace(c.Params("provider")),
		Timestamp: c.Get(offramps.WebhookTimestampHeader), Signature: c.Get(offramps.WebhookSignatureHeader),
		Body: append([]byte(nil), c.Body()...)})
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		return c.JSON(providerWebhookResponse{Received: true, Duplicate: res.Duplicate})
	}, nil
}

type offrampPaymentCreateRequest struct {
	Phone                  string `json:"phone" oas:"required,maxLength=32"`
	AmountUSD              string `json:"amountUsd" oas:"required"`
	ChainID                *int64 `json:"chainId,omitempty"`
	FundingMode            string `json:"fundingMode,omitempty" oas:"enum=INTERNAL_BALANCE|ONCHAIN_DEPOSIT|SAFE_PROPOSAL" description:"How the payment is funded; only INTERNAL_BALANCE (the default) works, the others answer 400 FUNDING_MODE_NOT_AVAILABLE."`
	RequestedDestinationID string `json:"requestedDestinationId,omitempty"`
	SpeedPreference        string `json:"speedPreference,omitempty" oas:"enum=FASTEST|CHEAPEST" description:"Which route to prefer when several fit: FASTEST or CHEAPEST."`
}

type payoutRouteSelectRequest struct {
	RouteQuoteID string `json:"routeQuoteId" oas:"required"`
}

type payoutRouteQuoteFees struct {
	ProviderFeeMinor string `json:"providerFeeMinor" oas:"required"`
	NetworkFeeMinor  string `json:"networkFeeMinor" oas:"required"`
}

// payoutRouteQuoteResponse is docs/api.md's RouteQuote.
type payoutRouteQuoteResponse struct {
	RouteID                  string               `json:"routeId" oas:"required"`
	PaymentID                string               `json:"paymentId" oas:"required"`
	DestinationID            string               `json:"destinationId" oas:"required"`
	Provider                 string               `json:"provider" oas:"required" description:"The payout provider of the route (lower case)."`
	SourceAmountBaseUnits    string               `json:"sourceAmountBaseUnits" oas:"required"`
	SourceAssetID            string               `json:"sourceAssetId" oas:"required"`
	DestinationAmountMinor   string               `json:"destinationAmountMinor" oas:"required"`
	DestinationCurrency      string               `json:"destinationCurrency" oas:"required"`
	Fees                     payoutRouteQuoteFees `json:"fees" oas:"required"`
	ExchangeRate             string               `json:"exchangeRate" oas:"required" description:"USD to the destination currency, a decimal string (1 for USD)."`
	EstimatedDeliverySeconds int                  `json:"estimatedDeliverySeconds" oas:"required"`
	RequiresBridge           bool                 `json:"requiresBridge" oas:"required"`
	RequiresConversion       bool                 `json:"requiresConversion" oas:"required"`
	RequiresPrefunding       bool                 `json:"requiresPrefunding" oas:"required" description:"Whether the provider must be prefunded before it pays out on this route."`
	Status                   string               `json:"status" oas:"required"`
	QuoteExpiresAt           time.Time            `json:"quoteExpiresAt" oas:"required"`
}

// offrampPaymentResponse is docs/api.md's OffRampPayment; quotes only in the create response.
type offrampPaymentResponse struct {
	PaymentID              string                      `json:"paymentId" oas:"required"`
	Status                 string                      `json:"status" oas:"required"`
	RecipientPhoneMasked   *string                     `json:"recipientPhoneMasked" oas:"required"`
	RecipientTenantID      *string                     `json:"recipientTenantId" oas:"required"`
	ClaimID                *string                     `json:"claimId" oas:"required"`
	SourceChainKey         string                      `json:"sourceChainKey" oas:"required" description:"The chain the USDC comes from, as a CAIP-2 key (eip155:<chain id>)."`
	SourceAssetID          string                      `json:"sourceAssetId" oas:"required"`
	SourceAmountBaseUnits  string                      `json:"sourceAmountBaseUnits" oas:"required"`
	SourceFundingMode      string                      `json:"sourceFundingMode" oas:"required" description:"How the payment is funded: INTERNAL_BALANCE (the service balance), ONCHAIN_DEPOSIT or SAFE_PROPOSAL."`
	RequestedDestinationID *string                     `json:"requestedDestinationId" oas:"required"`
	SelectedRouteQuoteID   *string                     `json:"selectedRouteQuoteId" oas:"required"`
	HoldReasons            []string                    `json:"holdReasons" oas:"required"`
	FailureReason          *string                     `json:"failureReason" oas:"required"`
	RequoteReason          *string                     `json:"requoteReason" oas:"required,enum=QUOTE_EXPIRED|DESTINATION_UNAVAILABLE|DESTINATION_REVOKED|RAIL_UNAVAILABLE|CREDENTIAL_CHANGED|POLICY_CHANGED" description:"Why the check just before submission sent this confirmed payment back to quoting: QUOTE_EXPIRED (the confirmed quote lapsed: rates may have changed, the recipient confirms a new quote), DESTINATION_UNAVAILABLE, DESTINATION_REVOKED, RAIL_UNAVAILABLE, CREDENTIAL_CHANGED or POLICY_CHANGED; null when that never happened or once the recipient confirmed again."`
	DeliveredAt            *time.Time                  `json:"deliveredAt" oas:"required"`
	CreatedAt              time.Time                   `json:"createdAt" oas:"required"`
	Quotes                 *[]payoutRouteQuoteResponse `json:"quotes,omitempty"`
}

type offrampPaymentListResponse struct {
	Payments []offrampPaymentResponse `json:"payments" oas:"required"`
	Total    int                      `json:"total" oas:"required"`
}

type payoutRouteQuotesResponse struct {
	Routes []payoutRouteQuoteResponse `json:"routes" oas:"required"`
}

type providerWebhookResponse struct {
	Received  bool `json:"received" oas:"required" description:"Always true: the event's signature verified and it was accepted."`
	Duplicate bool `json:"duplicate" oas:"required" description:"Whether the provider had sent this event before: a duplicate changes nothing."`
}

func toPayoutRouteQuote(q offramp.Quote) payoutRouteQuoteResponse {
	return payoutRouteQuoteResponse{RouteID: q.ID, PaymentID: q.PaymentID, DestinationID: q.DestinationID, Provider: q.Provider,
		SourceAmountBaseUnits: strconv.FormatInt(q.SourceAmountBaseUnits, 10), SourceAssetID: q.SourceAssetID,
		DestinationAmountMinor: strconv.FormatInt(q.DestinationAmountMinor, 10), DestinationCurrency: q.DestinationCurrency,
		Fees:         payoutRouteQuoteFees{ProviderFeeMinor: strconv.FormatInt(q.ProviderFeeMinor, 10), NetworkFeeMinor: strconv.FormatInt(q.NetworkFeeMinor, 10)},
		ExchangeRate: q.ExchangeRate, EstimatedDeliverySeconds: q.EstimatedDeliverySeconds, RequiresBridge: q.RequiresBridge,
		RequiresConversion: q.RequiresConversion, RequiresPrefunding: q.RequiresPrefunding, Status: string(q.Status),
		QuoteExpiresAt: q.ExpiresAt}
}

func toPayoutRouteQuotes(qs []offramp.Quote) []payoutRouteQuoteResponse {
	out := make([]payoutRouteQuoteResponse, len(qs))
	for i, q := range qs {
		out[i] = toPayoutRouteQuote(q)
	}
	return out
}

func toOfframpPayment(p offramp.Payment) offrampPaymentResponse {
	holds := make([]string, len(p.HoldReasons))
	for i, h := range p.HoldReasons {
		holds[i] = string(h)
	}
	return offrampPaymentResponse{PaymentID: p.ID, Status: string(p.Status), RecipientPhoneMasked: strPtr(p.RecipientPhoneMasked),
		RecipientTenantID: strPtr(p.RecipientTenantID), ClaimID: strPtr(p.ClaimID), SourceChainKey: p.SourceChainKey,
		SourceAssetID: p.SourceAssetID, SourceAmountBaseUnits: strconv.FormatInt(p.SourceAmountBaseUnits, 10),
		SourceFundingMode: p.FundingMode, RequestedDestinationID: strPtr(p.RequestedDestinationID),
		SelectedRouteQuoteID: strPtr(p.SelectedQuoteID), HoldReasons: holds, FailureReason: strPtr(p.FailureReason), RequoteReason: strPtr(string(p.RequoteReason)),
		DeliveredAt: p.DeliveredAt, CreatedAt: p.CreatedAt}
}

func toOfframpPaymentCreated(v offramps.PaymentView) offrampPaymentResponse {
	out := toOfframpPayment(v.Payment)
	qs := toPayoutRouteQuotes(v.Quotes)
	out.Quotes = &qs
	return out
}
