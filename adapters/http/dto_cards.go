package http

import (
	"encoding/json"
	"time"

	"github.com/corridorhq/corridor/app/cards"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ports"
)

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
