package http

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/cards"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ports"
)

// cardsHandlers serve cards, cardholders, authorizations and push-provisioning keys. A wallet
// card issued for an agent follows the agents' rule for it (the cards capability applies it).
type cardsHandlers struct {
	svc           *cards.Service
	ephemeralKeys callerLimiter // per client IP, a rolling minute
}

// cardEndpoints are the routes of cards (docs/api.md Cards, docs/decisions/cards.md).
func (h *cardsHandlers) cardEndpoints() []Endpoint {
	pathID := []Param{{Name: "id", In: "path"}}
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	read := []auth.Scope{auth.ScopeCardsRead}
	issue := []auth.Scope{auth.ScopeCardsIssue}
	manage := []auth.Scope{auth.ScopeCardsManage}
	return []Endpoint{
		{Method: "POST", Path: "/v1/wallets/{walletId}/cards", Summary: "Issue a card spending from a DEPLOYED wallet's Safe (the Safe must have the card spend module enabled); with agentId, the agent's card on its own wallet, as POST /v1/agents/{id}/cards", Tag: "cards",
			Auth: authRequired, Scopes: issue, Params: []Param{{Name: "walletId", In: "path"}}, Request: cardIssueRequest{}, SandboxOnly: true,
			Responses: map[int]any{201: cardResponse{}, 400: Envelope{}, 404: Envelope{}, 409: Envelope{}, 503: Envelope{}}, Prepare: h.issueWalletCard,
			AgentSuspendedConflict: true},
		{Method: "POST", Path: "/v1/cardholders", Summary: "Create a cardholder", Tag: "cards",
			Auth: authRequired, SandboxOnly: true, Scopes: issue, Request: cardholderRequest{},
			Responses: map[int]any{201: cardholderResponse{}, 400: Envelope{}}, Handler: h.createCardholder},
		{Method: "GET", Path: "/v1/cardholders", Summary: "List cardholders, newest first", Tag: "cards",
			Auth: authRequired, SandboxOnly: true, Scopes: read, Params: paging,
			Responses: map[int]any{200: cardholderListResponse{}}, Handler: h.listCardholders},
		{Method: "POST", Path: "/v1/cards", Summary: "Issue a card for a cardholder, drawing on the tenant's funding card account", Tag: "cards",
			Auth: authRequired, Scopes: issue, Request: cardholderCardRequest{}, SandboxOnly: true,
			Responses: map[int]any{201: cardResponse{}, 400: Envelope{}, 404: Envelope{}}, Prepare: h.issueCardholderCard},
		{Method: "GET", Path: "/v1/cards", Summary: "List cards, newest first", Tag: "cards",
			Auth: authRequired, Scopes: read, Params: paging,
			Responses: map[int]any{200: cardListResponse{}}, Handler: h.listCards},
		{Method: "GET", Path: "/v1/cards/{id}", Summary: "A card", Tag: "cards",
			Auth: authRequired, Scopes: read, Params: pathID,
			Responses: map[int]any{200: cardResponse{}, 404: Envelope{}}, Handler: h.getCard},
		{Method: "GET", Path: "/v1/cards/{id}/limits", Summary: "A card's limits", Tag: "cards",
			Auth: authRequired, Scopes: read, Params: pathID,
			Responses: map[int]any{200: cardLimitsResponse{}, 404: Envelope{}}, Handler: h.getCardLimits},
		{Method: "PUT", Path: "/v1/cards/{id}/limits", Summary: "Change a card's limits: only sent fields change; null clears a cap or the allowlist; blockedMcc replaces the list", Tag: "cards",
			Auth: authRequired, Scopes: manage, Params: pathID, Request: cardLimitsRequest{},
			Responses: map[int]any{200: cardLimitsResponse{}, 400: Envelope{}, 404: Envelope{}}, Handler: h.putCardLimits},
		{Method: "POST", Path: "/v1/cards/{id}/freeze", Summary: "Freeze a card (reversible): its authorizations decline CARD_INACTIVE", Tag: "cards",
			Auth: authRequired, Scopes: manage, Params: pathID,
			Responses: map[int]any{200: cardResponse{}, 404: Envelope{}}, Handler: h.freezeCard},
		{Method: "POST", Path: "/v1/cards/{id}/unfreeze", Summary: "Unfreeze a card", Tag: "cards",
			Auth: authRequired, Scopes: manage, Params: pathID,
			Responses: map[int]any{200: cardResponse{}, 404: Envelope{}}, Handler: h.unfreezeCard},
		{Method: "POST", Path: "/v1/cards/{id}/ephemeral-keys", Summary: "A push-provisioning ephemeral key (5 a minute per client IP; 400 under the funding_account issuing provider)", Tag: "cards",
			Auth: authRequired, Scopes: manage, Params: pathID, Request: ephemeralKeyRequest{},
			Responses: map[int]any{201: ephemeralKeyResponse{}, 400: Envelope{}, 404: Envelope{}, 429: Envelope{}}, Prepare: h.createEphemeralKey,
			SecretFields: []string{"ephemeralKey"}},
		{Method: "GET", Path: "/v1/cards/{id}/authorizations", Summary: "A card's authorizations with their decisions, newest first", Tag: "cards",
			Auth: authRequired, Scopes: read, Params: append(append([]Param{}, pathID...), paging...),
			Responses: map[int]any{200: cardAuthorizationListResponse{}, 404: Envelope{}}, Handler: h.listCardAuthorizations},
		{Method: "POST", Path: "/v1/sandbox/cards/{id}/authorizations", Summary: "Simulate an authorization at a till: approved (a ledger hold) or declined with its reason", Tag: "sandbox",
			Auth: authRequired, Scopes: manage, Params: pathID, Request: cardAuthorizationRequest{},
			Responses: map[int]any{201: cardAuthorizationResponse{}, 400: Envelope{}, 404: Envelope{}}, Prepare: h.prepareAuthorize},
		{Method: "POST", Path: "/v1/sandbox/card-authorizations/{id}/capture", Summary: "Capture an APPROVED authorization in whole or in part; the captured spend settles on chain", Tag: "sandbox",
			Auth: authRequired, Scopes: manage, Params: pathID, Request: cardCaptureRequest{},
			Responses: map[int]any{200: cardAuthorizationResponse{}, 400: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Handler: h.sandboxCapture},
		{Method: "POST", Path: "/v1/sandbox/card-authorizations/{id}/reverse", Summary: "Reverse an APPROVED authorization: the hold is voided and its windows credited back", Tag: "sandbox",
			Auth: authRequired, Scopes: manage, Params: pathID,
			Responses: map[int]any{200: cardAuthorizationResponse{}, 404: Envelope{}, 409: Envelope{}}, Handler: h.sandboxReverse},
	}
}

// issueWalletCard checks the wallet and its Safe's card spend module (a chain read) outside
// the runner's unit of work, then issues and records the card inside it.
func (h *cardsHandlers) issueWalletCard(c *fiber.Ctx) (fiber.Handler, error) {
	var req cardIssueRequest
	patch, err := limitsPatch(c.Body(), &req, &req.cardLimitsRequest)
	if err != nil {
		return nil, err
	}
	if req.AgentID != nil {
		return h.issueWalletAgentCard(c, *req.AgentID, patch)
	}
	read, err := h.svc.ReadIssue(c.UserContext(), principal(c), strings.TrimSpace(c.Params("walletId")),
		cards.IssueInput{Limits: patch, AgentID: req.AgentID})
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		card, err := h.svc.Issue(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toCard(card))
	}, nil
}

// issueWalletAgentCard is POST /v1/wallets/{walletId}/cards with an agentId: the agent's card,
// by the agents' rule for it (POST /v1/agents/{id}/cards), on the agent's own wallet.
func (h *cardsHandlers) issueWalletAgentCard(c *fiber.Ctx, agentID string, patch card.LimitsPatch) (fiber.Handler, error) {
	read, err := h.svc.ReadWalletAgentCard(c.UserContext(), principal(c), strings.TrimSpace(c.Params("walletId")), agentID, patch)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		card, err := h.svc.RecordAgentCard(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toCard(card))
	}, nil
}

// issueCardholderCard validates the body and issues the card at the issuer outside the
// runner's unit of work (no outside call inside a transaction, docs/decisions/reliability.md), then records it inside.
func (h *cardsHandlers) issueCardholderCard(c *fiber.Ctx) (fiber.Handler, error) {
	var req cardholderCardRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadCardholderCard(c.UserContext(), principal(c), req.input())
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		card, err := h.svc.RecordCardholderCard(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toCard(card))
	}, nil
}

func (h *cardsHandlers) listCards(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	cards, total, err := h.svc.ListCards(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := cardListResponse{Cards: make([]cardResponse, len(cards)), Total: total}
	for i, cd := range cards {
		out.Cards[i] = toCard(cd)
	}
	return c.JSON(out)
}

func (h *cardsHandlers) getCard(c *fiber.Ctx) error {
	card, err := h.svc.GetCard(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toCard(card))
}

func (h *cardsHandlers) getCardLimits(c *fiber.Ctx) error {
	card, err := h.svc.GetCard(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toCardLimits(card))
}

func (h *cardsHandlers) putCardLimits(c *fiber.Ctx) error {
	var req cardLimitsRequest
	patch, err := limitsPatch(c.Body(), &req, &req)
	if err != nil {
		return err
	}
	card, err := h.svc.UpdateLimits(c.UserContext(), principal(c), c.Params("id"), patch)
	if err != nil {
		return err
	}
	return c.JSON(toCardLimits(card))
}

func (h *cardsHandlers) freezeCard(c *fiber.Ctx) error   { return h.setCardFrozen(c, true) }
func (h *cardsHandlers) unfreezeCard(c *fiber.Ctx) error { return h.setCardFrozen(c, false) }

func (h *cardsHandlers) setCardFrozen(c *fiber.Ctx, frozen bool) error {
	if err := decodeBody(c, &struct{}{}); err != nil {
		return err
	}
	card, err := h.svc.SetFrozen(c.UserContext(), principal(c), c.Params("id"), frozen)
	if err != nil {
		return err
	}
	return c.JSON(toCard(card))
}

// ephemeralKeysPerMinute bounds push-provisioning keys per client IP in any rolling minute
// (docs/api.md: 5 per minute per IP); every request the limit lets through counts, whatever the
// card or the issuer answers.
const ephemeralKeysPerMinute = 5

// createEphemeralKey mints the key at the issuer outside the runner's unit of work (docs/decisions/reliability.md);
// the unit only stores the answer for replays.
func (h *cardsHandlers) createEphemeralKey(c *fiber.Ctx) (fiber.Handler, error) {
	ok, wait := h.ephemeralKeys.allow("ephemeral-key-ip:"+c.IP(), time.Now())
	if !ok {
		c.Set(fiber.HeaderRetryAfter, retryAfter(wait))
		return nil, (&core.Error{Code: core.CodeRateLimited, Message: "at most 5 ephemeral keys a minute per client; retry after the Retry-After seconds"}).
			WithDetails(map[string]any{"retryAfterSeconds": retryAfter(wait)})
	}
	var req ephemeralKeyRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	card, key, err := h.svc.CreateEphemeralKey(c.UserContext(), principal(c), c.Params("id"), cards.EphemeralKeyInput{
		Platform: req.Platform, Nonce: req.Nonce, NonceSignature: req.NonceSignature, Certificates: req.Certificates})
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error { return c.Status(fiber.StatusCreated).JSON(toEphemeralKey(card, key)) }, nil
}

func (h *cardsHandlers) listCardAuthorizations(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	auths, total, err := h.svc.ListAuthorizations(c.UserContext(), principal(c), c.Params("id"), page)
	if err != nil {
		return err
	}
	out := cardAuthorizationListResponse{Authorizations: make([]cardAuthorizationResponse, len(auths)), Total: total}
	for i, a := range auths {
		out.Authorizations[i] = toCardAuthorization(a)
	}
	return c.JSON(out)
}

func (h *cardsHandlers) createCardholder(c *fiber.Ctx) error {
	var req cardholderRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	holder, err := h.svc.CreateCardholder(c.UserContext(), principal(c), req.Name, req.Email)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toCardholder(holder))
}

func (h *cardsHandlers) listCardholders(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	holders, total, err := h.svc.ListCardholders(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := cardholderListResponse{Cardholders: make([]cardholderResponse, len(holders)), Total: total}
	for i, holder := range holders {
		out.Cardholders[i] = toCardholder(holder)
	}
	return c.JSON(out)
}

// prepareAuthorize names the rows a known funding-account card's hold will lock before the
// authorization's unit of work runs, so its claim of the Idempotency-Key locks them in the same
// statement (cards.PrepareAuthorize).
func (h *cardsHandlers) prepareAuthorize(c *fiber.Ctx) (fiber.Handler, error) {
	h.svc.PrepareAuthorize(c.UserContext(), principal(c), c.Params("id"))
	return h.sandboxAuthorize, nil
}

func (h *cardsHandlers) sandboxAuthorize(c *fiber.Ctx) error {
	var req cardAuthorizationRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := h.svc.Authorize(c.UserContext(), principal(c), c.Params("id"), cards.AuthorizeInput{
		AmountUsd: req.AmountUSD, MCC: req.MCC, MerchantName: req.MerchantName, Counterparty: req.Counterparty})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toCardAuthorization(a))
}

func (h *cardsHandlers) sandboxCapture(c *fiber.Ctx) error {
	var req cardCaptureRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := h.svc.Capture(c.UserContext(), principal(c), c.Params("id"), cards.CaptureInput{AmountUsd: req.AmountUSD})
	if err != nil {
		return err
	}
	return c.JSON(toCardAuthorization(a))
}

func (h *cardsHandlers) sandboxReverse(c *fiber.Ctx) error {
	if err := decodeBody(c, &struct{}{}); err != nil {
		return err
	}
	a, err := h.svc.Reverse(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toCardAuthorization(a))
}

// cardLimitsRequest documents PUT /v1/cards/{id}/limits: any subset of the fields; only sent
// fields change, null clears a cap or the allowlist, blockedMcc replaces the list.
type cardLimitsRequest struct {
	PerTransactionUSD *string   `json:"perTransactionUsd" oas:"pattern=^[0-9]+(\\.[0-9]+)?$"`
	DailyUSD          *string   `json:"dailyUsd" oas:"pattern=^[0-9]+(\\.[0-9]+)?$"`
	WeeklyUSD         *string   `json:"weeklyUsd" oas:"pattern=^[0-9]+(\\.[0-9]+)?$"`
	MonthlyUSD        *string   `json:"monthlyUsd" oas:"pattern=^[0-9]+(\\.[0-9]+)?$"`
	BlockedMcc        *[]string `json:"blockedMcc"`
	AllowedMcc        *[]string `json:"allowedMcc"`
}

// cardIssueRequest documents POST /v1/wallets/{walletId}/cards.
type cardIssueRequest struct {
	cardLimitsRequest
	AgentID *string `json:"agentId" description:"an agent of yours whose wallet this is: the card is bound to it by the rules of POST /v1/agents/{id}/cards (needs agents:manage too); null or absent: a card of the wallet alone"`
}

// limitsPatch decodes a limits body strictly and learns which fields were sent, and which as
// null: the struct alone cannot tell an absent field from a null one.
func limitsPatch(raw []byte, dst any, lr *cardLimitsRequest) (card.LimitsPatch, error) {
	if err := decodeJSON(raw, dst); err != nil {
		return card.LimitsPatch{}, err
	}
	var present map[string]json.RawMessage
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &present); err != nil {
			return card.LimitsPatch{}, core.Invalid("body", "must be a JSON object")
		}
	}
	capOf := func(name string, v *string) card.CapPatch {
		_, set := present[name]
		return card.CapPatch{Set: set, Value: v}
	}
	listOf := func(name string, v *[]string) card.ListPatch {
		_, set := present[name]
		p := card.ListPatch{Set: set, Null: v == nil}
		if v != nil {
			p.Value = *v
		}
		return p
	}
	return card.LimitsPatch{
		PerTransactionUsd: capOf("perTransactionUsd", lr.PerTransactionUSD), DailyUsd: capOf("dailyUsd", lr.DailyUSD),
		WeeklyUsd: capOf("weeklyUsd", lr.WeeklyUSD), MonthlyUsd: capOf("monthlyUsd", lr.MonthlyUSD),
		BlockedMcc: listOf("blockedMcc", lr.BlockedMcc), AllowedMcc: listOf("allowedMcc", lr.AllowedMcc),
	}, nil
}

// cardResponse is a card: docs/api.md's issue and freeze responses, and the fields of both kinds.
type cardResponse struct {
	CardID               string    `json:"cardId" oas:"required"`
	IssuerCardID         string    `json:"issuerCardId" oas:"required"`
	Last4                string    `json:"last4" oas:"required"`
	Status               string    `json:"status" oas:"required,enum=active|inactive"`
	SafeAddress          *string   `json:"safeAddress" oas:"required"`
	WalletID             *string   `json:"walletId" oas:"required"`
	CardholderID         *string   `json:"cardholderId" oas:"required"`
	FundingCardAccountID *string   `json:"fundingCardAccountId" oas:"required"`
	AgentID              *string   `json:"agentId" oas:"required"`
	Chain                *string   `json:"chain" oas:"required"`
	CryptoAccountAddress *string   `json:"cryptoAccountAddress" oas:"required"`
	CryptoAccountType    *string   `json:"cryptoAccountType" oas:"required"`
	CreatedAt            time.Time `json:"createdAt" oas:"required"`
}

type cardListResponse struct {
	Cards []cardResponse `json:"cards" oas:"required"`
	Total int            `json:"total" oas:"required"`
}

func toCard(c card.Card) cardResponse {
	return cardResponse{CardID: c.ID, IssuerCardID: c.IssuerCardID, Last4: c.Last4, Status: string(c.Status),
		SafeAddress: strPtr(c.SafeAddress), WalletID: strPtr(c.WalletID), CardholderID: strPtr(c.CardholderID),
		FundingCardAccountID: strPtr(c.FundingAccountID), AgentID: strPtr(c.AgentID), Chain: strPtr(c.Chain),
		CryptoAccountAddress: strPtr(c.CryptoAccountAddress), CryptoAccountType: strPtr(c.CryptoAccountType),
		CreatedAt: c.CreatedAt}
}

// cardLimitsResponse is docs/api.md's CardLimits.
type cardLimitsResponse struct {
	CardID            string    `json:"cardId" oas:"required"`
	PerTransactionUSD *string   `json:"perTransactionUsd" oas:"required"`
	DailyUSD          *string   `json:"dailyUsd" oas:"required"`
	WeeklyUSD         *string   `json:"weeklyUsd" oas:"required"`
	MonthlyUSD        *string   `json:"monthlyUsd" oas:"required"`
	BlockedMcc        []string  `json:"blockedMcc" oas:"required"`
	AllowedMcc        *[]string `json:"allowedMcc" oas:"required"`
}

func usdOrNull(v *int64) *string {
	if v == nil {
		return nil
	}
	s := core.FormatUSD(*v)
	return &s
}

func toCardLimits(c card.Card) cardLimitsResponse {
	out := cardLimitsResponse{CardID: c.ID, PerTransactionUSD: usdOrNull(c.Limits.PerTransaction), DailyUSD: usdOrNull(c.Limits.Daily),
		WeeklyUSD: usdOrNull(c.Limits.Weekly), MonthlyUSD: usdOrNull(c.Limits.Monthly), BlockedMcc: c.Limits.BlockedMCC}
	if out.BlockedMcc == nil {
		out.BlockedMcc = []string{}
	}
	if c.Limits.AllowedMCC != nil {
		allowed := append([]string{}, c.Limits.AllowedMCC...)
		out.AllowedMcc = &allowed
	}
	return out
}

type cardholderRequest struct {
	Name  string `json:"name" oas:"required,maxLength=200"`
	Email string `json:"email" oas:"required,maxLength=254"`
}

type cardholderResponse struct {
	CardholderID string    `json:"cardholderId" oas:"required"`
	Name         string    `json:"name" oas:"required"`
	Email        string    `json:"email" oas:"required"`
	CreatedAt    time.Time `json:"createdAt" oas:"required"`
}

type cardholderListResponse struct {
	Cardholders []cardholderResponse `json:"cardholders" oas:"required"`
	Total       int                  `json:"total" oas:"required"`
}

func toCardholder(h card.Cardholder) cardholderResponse {
	return cardholderResponse{CardholderID: h.ID, Name: h.Name, Email: h.Email, CreatedAt: h.CreatedAt}
}

// cardholderCardRequest documents POST /v1/cards.
type cardholderCardRequest struct {
	CardholderID         string  `json:"cardholderId" oas:"required"`
	Chain                *string `json:"chain,omitempty" oas:"enum=solana|world_chain|base"`
	CryptoAccountAddress *string `json:"cryptoAccountAddress,omitempty"`
	CryptoAccountType    *string `json:"cryptoAccountType,omitempty" oas:"enum=standard|bridge_wallet"`
}

func (r cardholderCardRequest) input() cards.CardholderCardInput {
	return cards.CardholderCardInput{CardholderID: r.CardholderID, Chain: r.Chain,
		CryptoAccountAddress: r.CryptoAccountAddress, CryptoAccountType: r.CryptoAccountType}
}

type ephemeralKeyRequest struct {
	Platform       string   `json:"platform" oas:"required,enum=vendor_a|vendor_b" description:"The card wallet vendor asking for the key (vendor_a or vendor_b)."`
	Nonce          string   `json:"nonce,omitempty" oas:"maxLength=512" description:"The vendor's nonce, as its push-provisioning protocol sends it; optional."`
	NonceSignature string   `json:"nonceSignature,omitempty" oas:"maxLength=2048" description:"The device's signature over the nonce, when the vendor's protocol sends one."`
	Certificates   []string `json:"certificates,omitempty" description:"The vendor's certificates, as its push-provisioning protocol sends them; optional."`
}

type ephemeralKeyResponse struct {
	CardID       string         `json:"cardId" oas:"required"`
	IssuerCardID string         `json:"issuerCardId" oas:"required"`
	Platform     string         `json:"platform" oas:"required,enum=vendor_a|vendor_b" description:"The card wallet vendor the key was minted for."`
	EphemeralKey map[string]any `json:"ephemeralKey" oas:"required,nullable" description:"the issuer's key object {id, secret, expiresAt}, shown once (null on an idempotent replay)"`
}

func toEphemeralKey(c card.Card, k ports.EphemeralKey) ephemeralKeyResponse {
	return ephemeralKeyResponse{CardID: c.ID, IssuerCardID: c.IssuerCardID, Platform: k.Platform,
		EphemeralKey: map[string]any{"id": k.ID, "secret": k.Secret, "expiresAt": k.ExpiresAt.UTC().Format(time.RFC3339)}}
}

type cardAuthorizationRequest struct {
	AmountUSD    string  `json:"amountUsd" oas:"required,pattern=^[0-9]+(\\.[0-9]+)?$"`
	MCC          string  `json:"mcc" oas:"required,pattern=^[0-9]{4}$"`
	MerchantName string  `json:"merchantName" oas:"required,maxLength=200"`
	Counterparty *string `json:"counterparty,omitempty" oas:"pattern=^0x[0-9a-fA-F]{40}$" description:"The EVM address the spend pays (0x…, 40 hex digits), checked against the policies' counterparty lists; absent: none."`
}

type cardCaptureRequest struct {
	AmountUSD *string `json:"amountUsd,omitempty" oas:"pattern=^[0-9]+(\\.[0-9]+)?$"`
}

type cardWindowsResponse struct {
	Day   string `json:"day" oas:"required" description:"The UTC day the authorization counted in (YYYY-MM-DD, 2026-03-01)."`
	Week  string `json:"week" oas:"required" description:"The ISO week the authorization counted in, starting Monday 00:00 UTC (YYYY-Www, 2026-W09)."`
	Month string `json:"month" oas:"required" description:"The calendar month (UTC) the authorization counted in (YYYY-MM, 2026-03)."`
}

// cardAuthorizationResponse is one recorded decision.
type cardAuthorizationResponse struct {
	AuthorizationID   string              `json:"authorizationId" oas:"required"`
	CardID            string              `json:"cardId" oas:"required"`
	AmountUSD         string              `json:"amountUsd" oas:"required"`
	CapturedAmountUSD string              `json:"capturedAmountUsd" oas:"required"`
	MCC               string              `json:"mcc" oas:"required"`
	MerchantName      string              `json:"merchantName" oas:"required"`
	Counterparty      *string             `json:"counterparty" oas:"required" description:"The EVM address the spend pays, checked against counterparty allow and block lists; null when the authorization named none."`
	Status            string              `json:"status" oas:"required,enum=APPROVED|DECLINED|CAPTURED|REVERSED"`
	DeclineReason     *string             `json:"declineReason" oas:"required"`
	ReversalReason    *string             `json:"reversalReason" oas:"required,enum=MERCHANT|EXPIRED" description:"Why an authorization was reversed: MERCHANT (the merchant reversed it) or EXPIRED (not captured within its lifetime); null unless REVERSED."`
	Windows           cardWindowsResponse `json:"windows" oas:"required"`
	HoldTransferID    *string             `json:"holdTransferId" oas:"required"`
	PolicyID          *string             `json:"policyId" oas:"required"`
	PolicyDecisionID  *string             `json:"policyDecisionId" oas:"required"`
	SettlementStatus  *string             `json:"settlementStatus" oas:"required,enum=PENDING|SUBMITTED|CONFIRMED|FAILED|OFF_CHAIN" description:"Where a captured spend's settlement stands: PENDING, SUBMITTED (sent on chain), CONFIRMED, FAILED, or OFF_CHAIN (a cardholder card, settled by the issuer); null until captured."`
	SettlementTxHash  *string             `json:"settlementTxHash" oas:"required"`
	SettlementError   *string             `json:"settlementError" oas:"required" description:"Why the on-chain settlement failed, or the last node error it is retried after; null while none occurred."`
	CreatedAt         time.Time           `json:"createdAt" oas:"required"`
	UpdatedAt         time.Time           `json:"updatedAt" oas:"required"`
}

type cardAuthorizationListResponse struct {
	Authorizations []cardAuthorizationResponse `json:"authorizations" oas:"required"`
	Total          int                         `json:"total" oas:"required"`
}

func toCardAuthorization(a card.Authorization) cardAuthorizationResponse {
	return cardAuthorizationResponse{AuthorizationID: a.ID, CardID: a.CardID, AmountUSD: core.FormatUSD(a.Amount),
		CapturedAmountUSD: core.FormatUSD(a.CapturedAmount), MCC: a.MCC, MerchantName: a.MerchantName,
		Counterparty: strPtr(a.Counterparty), Status: string(a.Status), DeclineReason: strPtr(a.DeclineReason),
		ReversalReason: strPtr(a.ReversalReason),
		Windows:        cardWindowsResponse{Day: a.Windows.Day, Week: a.Windows.Week, Month: a.Windows.Month},
		HoldTransferID: strPtr(a.HoldTransferID), PolicyID: strPtr(a.PolicyID),
		PolicyDecisionID: strPtr(a.PolicyDecisionID), SettlementStatus: strPtr(string(a.SettlementStatus)),
		SettlementTxHash: strPtr(a.SettlementTxHash), SettlementError: strPtr(a.SettlementError),
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}
