package http

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/treasuries"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/treasury"
)

// treasuryHandlers serve treasury accounts, their rules and sweeps.
type treasuryHandlers struct{ svc *treasuries.Service }

// treasuryEndpoints are the routes of treasury accounts (docs/api.md Endpoints, Treasury) and the
// sandbox clock helper (docs/decisions/treasury.md). Treasury is sandbox only: every route answers LIVE
// keys 403 SANDBOX_ONLY.
func (h *treasuryHandlers) treasuryEndpoints() []Endpoint {
	read := []auth.Scope{auth.ScopeTreasuryRead}
	write := []auth.Scope{auth.ScopeTreasuryWrite}
	pathID := []Param{{Name: "id", In: "path"}}
	ruleID := []Param{{Name: "ruleId", In: "path"}}
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	withPaging := append(append([]Param{}, pathID...), paging...)
	return []Endpoint{
		{Method: "POST", Path: "/v1/treasury/accounts", Summary: "Create a treasury account: one Safe (purpose TREASURY) per bucket, CREATE2 addresses usable at once, deployed by a durable job", Tag: "treasury",
			Auth: authRequired, Scopes: write, Request: treasuryAccountRequest{}, SandboxOnly: true,
			Responses: map[int]any{202: treasuryAccountResponse{}, 400: Envelope{}, 403: Envelope{}, 409: Envelope{}, 422: Envelope{}, 429: Envelope{}, 503: Envelope{}}, Handler: h.createTreasuryAccount},
		{Method: "GET", Path: "/v1/treasury/accounts", Summary: "List treasury accounts with live balances", Tag: "treasury",
			Auth: authRequired, Scopes: read, Params: paging, SandboxOnly: true,
			Responses: map[int]any{200: treasuryAccountListResponse{}, 403: Envelope{}}, Handler: h.listTreasuryAccounts},
		{Method: "GET", Path: "/v1/treasury/accounts/{id}", Summary: "A treasury account: live balances, drift versus target, accrued simulated yield", Tag: "treasury",
			Auth: authRequired, Scopes: read, Params: pathID, SandboxOnly: true,
			Responses: map[int]any{200: treasuryAccountResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.getTreasuryAccount},
		{Method: "POST", Path: "/v1/treasury/accounts/{id}/rules", Summary: "Create a rule that proposes sweeps between the account's buckets", Tag: "treasury",
			Auth: authRequired, Scopes: write, Params: pathID, Request: treasuryRuleRequest{}, SandboxOnly: true,
			Responses: map[int]any{201: treasuryRuleResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Handler: h.createTreasuryRule},
		{Method: "GET", Path: "/v1/treasury/accounts/{id}/rules", Summary: "List the account's rules", Tag: "treasury",
			Auth: authRequired, Scopes: read, Params: withPaging, SandboxOnly: true,
			Responses: map[int]any{200: treasuryRuleListResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.listTreasuryRules},
		{Method: "PATCH", Path: "/v1/treasury/rules/{ruleId}", Summary: "Change a rule: only sent fields change; null clears an amount", Tag: "treasury",
			Auth: authRequired, Scopes: write, Params: ruleID, Request: treasuryRulePatchRequest{}, SandboxOnly: true,
			Responses: map[int]any{200: treasuryRuleResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.patchTreasuryRule},
		{Method: "DELETE", Path: "/v1/treasury/rules/{ruleId}", Summary: "Delete a rule: it stops firing; its sweeps keep their ruleId", Tag: "treasury",
			Auth: authRequired, Scopes: write, Params: ruleID, SandboxOnly: true,
			Responses: map[int]any{200: treasuryRuleResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.deleteTreasuryRule},
		{Method: "POST", Path: "/v1/treasury/accounts/{id}/sweeps", Summary: "Propose a bucket-to-bucket USDC payment (a Safe payment owners sign)", Tag: "treasury",
			Auth: authRequired, Scopes: write, Params: pathID, Request: treasurySweepRequest{}, SandboxOnly: true,
			Responses: map[int]any{201: treasurySweepResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}, 409: Envelope{}, 422: Envelope{}, 503: Envelope{}}, Prepare: h.createTreasurySweep},
		{Method: "GET", Path: "/v1/treasury/accounts/{id}/sweeps", Summary: "List the account's sweeps, newest first, with the live status of their payments", Tag: "treasury",
			Auth: authRequired, Scopes: read, Params: withPaging, SandboxOnly: true,
			Responses: map[int]any{200: treasurySweepListResponse{}, 403: Envelope{}, 404: Envelope{}}, Handler: h.listTreasurySweeps},
		{Method: "POST", Path: "/v1/sandbox/treasury/accounts/{id}/advance", Summary: "TEST only: move the account's simulated clock days ahead, accrue each day's yield and run its rules", Tag: "sandbox",
			Auth: authRequired, Scopes: write, Params: pathID, Request: treasuryAdvanceRequest{},
			Responses: map[int]any{200: treasuryAdvanceResponse{}, 400: Envelope{}, 403: Envelope{}, 404: Envelope{}}, Prepare: h.advanceTreasury},
	}
}

func (h *treasuryHandlers) createTreasuryAccount(c *fiber.Ctx) error {
	var req treasuryAccountRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := h.svc.CreateAccount(c.UserContext(), principal(c), req.input())
	if err != nil {
		return err
	}
	// A fresh account: buckets hold nothing yet and nothing has accrued, so the view needs no
	// chain read (a replay returns this same body).
	view, err := h.svc.NewAccountView(a)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(toTreasuryAccount(view))
}

func (h *treasuryHandlers) listTreasuryAccounts(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	views, total, err := h.svc.ListAccounts(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := treasuryAccountListResponse{Accounts: make([]treasuryAccountResponse, len(views)), Total: total}
	for i, v := range views {
		out.Accounts[i] = toTreasuryAccount(v)
	}
	return c.JSON(out)
}

func (h *treasuryHandlers) getTreasuryAccount(c *fiber.Ctx) error {
	v, err := h.svc.GetAccount(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toTreasuryAccount(v))
}

func (h *treasuryHandlers) createTreasuryRule(c *fiber.Ctx) error {
	var req treasuryRuleRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	r, err := h.svc.CreateRule(c.UserContext(), principal(c), c.Params("id"), req.input())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toTreasuryRule(r))
}

func (h *treasuryHandlers) listTreasuryRules(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	rules, total, err := h.svc.ListRules(c.UserContext(), principal(c), c.Params("id"), page)
	if err != nil {
		return err
	}
	out := treasuryRuleListResponse{Rules: make([]treasuryRuleResponse, len(rules)), Total: total}
	for i, r := range rules {
		out.Rules[i] = toTreasuryRule(r)
	}
	return c.JSON(out)
}

func (h *treasuryHandlers) patchTreasuryRule(c *fiber.Ctx) error {
	var body treasuryRulePatchBody
	if err := decodeBody(c, &body); err != nil {
		return err
	}
	patch, err := body.patch()
	if err != nil {
		return err
	}
	r, err := h.svc.UpdateRule(c.UserContext(), principal(c), c.Params("ruleId"), patch)
	if err != nil {
		return err
	}
	return c.JSON(toTreasuryRule(r))
}

func (h *treasuryHandlers) deleteTreasuryRule(c *fiber.Ctx) error {
	r, err := h.svc.DeleteRule(c.UserContext(), principal(c), c.Params("ruleId"))
	if err != nil {
		return err
	}
	return c.JSON(toTreasuryRule(r))
}

func (h *treasuryHandlers) createTreasurySweep(c *fiber.Ctx) (fiber.Handler, error) {
	var req treasurySweepRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadSweep(c.UserContext(), principal(c), c.Params("id"), treasurySweepInput(req))
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		v, err := h.svc.CreateSweep(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toTreasurySweep(v))
	}, nil
}

func (h *treasuryHandlers) listTreasurySweeps(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	sweeps, total, err := h.svc.ListSweeps(c.UserContext(), principal(c), c.Params("id"), page)
	if err != nil {
		return err
	}
	out := treasurySweepListResponse{Sweeps: make([]treasurySweepResponse, len(sweeps)), Total: total}
	for i, v := range sweeps {
		out.Sweeps[i] = toTreasurySweep(v)
	}
	return c.JSON(out)
}

func (h *treasuryHandlers) advanceTreasury(c *fiber.Ctx) (fiber.Handler, error) {
	var req treasuryAdvanceRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadAdvance(c.UserContext(), principal(c), c.Params("id"), req.Days)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		r, err := h.svc.Advance(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.JSON(treasuryAdvanceResponse{AccountID: r.Account.ID, DaysAdvanced: r.DaysAdvanced,
			ClockOffsetDays: r.Account.ClockOffsetDays, SimulatedNow: r.SimulatedNow})
	}, nil
}

type treasuryBucketRequest struct {
	Name      string `json:"name" oas:"required,maxLength=100"`
	Kind      string `json:"kind" oas:"required,enum=OPERATING|RESERVE|YIELD"`
	TargetBps *int   `json:"targetBps" oas:"required"`
	ApyBps    *int   `json:"apyBps,omitempty"`
}

// treasuryAccountRequest is the body of POST /v1/treasury/accounts.
type treasuryAccountRequest struct {
	Name      string                  `json:"name" oas:"required,maxLength=100"`
	Owners    []walletOwnerRequest    `json:"owners" oas:"required"`
	Threshold *int                    `json:"threshold,omitempty"`
	ChainID   *int64                  `json:"chainId,omitempty"`
	Buckets   []treasuryBucketRequest `json:"buckets" oas:"required" description:"The buckets (OPERATING, RESERVE, YIELD) and their target shares in basis points; one Safe wallet is made per bucket."`
}

func (r treasuryAccountRequest) input() treasuries.CreateAccountInput {
	buckets := make([]treasury.BucketInput, len(r.Buckets))
	for i, b := range r.Buckets {
		buckets[i] = treasury.BucketInput{Name: b.Name, Kind: b.Kind, TargetBps: b.TargetBps, ApyBps: b.ApyBps}
	}
	return treasuries.CreateAccountInput{Name: r.Name, Owners: ownerInputs(r.Owners), Threshold: r.Threshold, ChainID: r.ChainID, Buckets: buckets}
}

type treasuryBucketResponse struct {
	BucketID        string  `json:"bucketId" oas:"required"`
	Name            string  `json:"name" oas:"required"`
	Kind            string  `json:"kind" oas:"required,enum=OPERATING|RESERVE|YIELD"`
	TargetBps       int     `json:"targetBps" oas:"required"`
	ApyBps          int     `json:"apyBps" oas:"required"`
	WalletID        string  `json:"walletId" oas:"required"`
	Address         string  `json:"address" oas:"required"`
	WalletStatus    string  `json:"walletStatus" oas:"required"`
	BalanceUsd      *string `json:"balanceUsd" oas:"required" description:"live on-chain USDC balance; null when the chain cannot be read (never zero for unknown)"`
	DriftUsd        *string `json:"driftUsd" oas:"required,pattern=^-?[0-9]+(\\.[0-9]+)?$" description:"balance less the target share of the total; null until every bucket is readable"`
	DriftBps        *int    `json:"driftBps" oas:"required" description:"actual share less target share in basis points; null until every bucket is readable"`
	AccruedYieldUsd string  `json:"accruedYieldUsd" oas:"required" description:"simulated yield booked on the ledger (treasury:{bucketId}:yield)"`
}

type treasuryAccountResponse struct {
	AccountID       string                   `json:"accountId" oas:"required"`
	Name            string                   `json:"name" oas:"required"`
	ChainID         int64                    `json:"chainId" oas:"required"`
	Threshold       int                      `json:"threshold" oas:"required"`
	Buckets         []treasuryBucketResponse `json:"buckets" oas:"required" description:"The account's buckets, each a Safe wallet, with its target share and live balance."`
	TotalUsd        *string                  `json:"totalUsd" oas:"required" description:"sum of the bucket balances; null while any bucket is unreadable"`
	ClockOffsetDays int                      `json:"clockOffsetDays" oas:"required" description:"days the sandbox clock helper moved this account ahead"`
	CreatedAt       time.Time                `json:"createdAt" oas:"required"`
}

type treasuryAccountListResponse struct {
	Accounts []treasuryAccountResponse `json:"accounts" oas:"required"`
	Total    int                       `json:"total" oas:"required"`
}

func toTreasuryAccount(v treasury.View) treasuryAccountResponse {
	a := v.Account
	out := treasuryAccountResponse{AccountID: a.ID, Name: a.Name, ChainID: a.ChainID, Threshold: a.Threshold,
		Buckets: make([]treasuryBucketResponse, len(v.Buckets)), TotalUsd: usdPtr(v.Total),
		ClockOffsetDays: a.ClockOffsetDays, CreatedAt: a.CreatedAt}
	for i, b := range v.Buckets {
		out.Buckets[i] = treasuryBucketResponse{BucketID: b.Bucket.ID, Name: b.Bucket.Name, Kind: string(b.Bucket.Kind),
			TargetBps: b.Bucket.TargetBps, ApyBps: b.Bucket.ApyBps, WalletID: b.Bucket.WalletID, Address: b.Bucket.Address,
			WalletStatus: b.Bucket.WalletStatus, BalanceUsd: usdPtr(b.Balance), DriftUsd: usdPtr(b.DriftBaseUnits),
			DriftBps: b.DriftBps, AccruedYieldUsd: core.FormatUSD(b.AccruedYield)}
	}
	return out
}

// treasuryRuleRequest is the body of POST /v1/treasury/accounts/{id}/rules.
type treasuryRuleRequest struct {
	Type            string  `json:"type" oas:"required,enum=SWEEP_EXCESS|TOP_UP|REBALANCE_TO_TARGET"`
	SourceBucketID  *string `json:"sourceBucketId,omitempty"`
	DestBucketID    *string `json:"destBucketId,omitempty"`
	ThresholdUsd    *string `json:"thresholdUsd,omitempty" oas:"nullable,pattern=^[0-9]+(\\.[0-9]+)?$"`
	TargetUsd       *string `json:"targetUsd,omitempty" oas:"nullable,pattern=^[0-9]+(\\.[0-9]+)?$"`
	IntervalSeconds *int    `json:"intervalSeconds,omitempty" description:"default 3600, at least 60, at most 2592000"`
	Enabled         *bool   `json:"enabled,omitempty"`
}

func (r treasuryRuleRequest) input() treasury.RuleInput {
	return treasury.RuleInput{Type: r.Type, SourceBucketID: r.SourceBucketID, DestBucketID: r.DestBucketID,
		ThresholdUsd: r.ThresholdUsd, TargetUsd: r.TargetUsd, IntervalSeconds: r.IntervalSeconds, Enabled: r.Enabled}
}

// treasuryRulePatchRequest documents PATCH /v1/treasury/rules/{ruleId}; treasuryRulePatchBody
// decodes it, keeping the amounts raw so an explicit null (clear) differs from absent (keep).
type treasuryRulePatchRequest struct {
	ThresholdUsd    *string `json:"thresholdUsd,omitempty" oas:"nullable,pattern=^[0-9]+(\\.[0-9]+)?$"`
	TargetUsd       *string `json:"targetUsd,omitempty" oas:"nullable,pattern=^[0-9]+(\\.[0-9]+)?$"`
	IntervalSeconds *int    `json:"intervalSeconds,omitempty"`
	Enabled         *bool   `json:"enabled,omitempty"`
}

type treasuryRulePatchBody struct {
	ThresholdUsd    json.RawMessage `json:"thresholdUsd"`
	TargetUsd       json.RawMessage `json:"targetUsd"`
	IntervalSeconds *int            `json:"intervalSeconds"`
	Enabled         *bool           `json:"enabled"`
}

func (b treasuryRulePatchBody) patch() (treasury.RulePatch, error) {
	errs := core.FieldErrors{}
	p := treasury.RulePatch{IntervalSeconds: b.IntervalSeconds, Enabled: b.Enabled}
	p.SetThreshold, p.ThresholdUsd = rawAmount("thresholdUsd", b.ThresholdUsd, errs)
	p.SetTarget, p.TargetUsd = rawAmount("targetUsd", b.TargetUsd, errs)
	return p, errs.Err()
}

// rawAmount reads an optional, nullable decimal string: absent (not set), null (set, clear)
// or a string.
func rawAmount(field string, raw json.RawMessage, errs core.FieldErrors) (bool, *string) {
	if raw == nil {
		return false, nil
	}
	if string(raw) == "null" {
		return true, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		errs.Add(field, "must be a decimal string or null")
		return false, nil
	}
	return true, &s
}

type treasuryRuleResponse struct {
	RuleID          string     `json:"ruleId" oas:"required"`
	AccountID       string     `json:"accountId" oas:"required"`
	Type            string     `json:"type" oas:"required,enum=SWEEP_EXCESS|TOP_UP|REBALANCE_TO_TARGET"`
	SourceBucketID  *string    `json:"sourceBucketId" oas:"required"`
	DestBucketID    *string    `json:"destBucketId" oas:"required"`
	ThresholdUsd    *string    `json:"thresholdUsd" oas:"required"`
	TargetUsd       *string    `json:"targetUsd" oas:"required"`
	IntervalSeconds int        `json:"intervalSeconds" oas:"required"`
	Enabled         bool       `json:"enabled" oas:"required"`
	LastFiredAt     *time.Time `json:"lastFiredAt" oas:"required"`
	LastSkippedAt   *time.Time `json:"lastSkippedAt" oas:"required" description:"the last window the runner skipped (an unreadable balance, a pending sweep, a payment it could not propose)"`
	LastSkipReason  *string    `json:"lastSkipReason" oas:"required"`
	CreatedAt       time.Time  `json:"createdAt" oas:"required"`
}

type treasuryRuleListResponse struct {
	Rules []treasuryRuleResponse `json:"rules" oas:"required" description:"The account's rules."`
	Total int                    `json:"total" oas:"required"`
}

func toTreasuryRule(r treasury.Rule) treasuryRuleResponse {
	return treasuryRuleResponse{RuleID: r.ID, AccountID: r.AccountID, Type: string(r.Type),
		SourceBucketID: strPtr(r.SourceBucketID), DestBucketID: strPtr(r.DestBucketID),
		ThresholdUsd: usdPtr(r.Threshold), TargetUsd: usdPtr(r.Target), IntervalSeconds: r.IntervalSeconds, Enabled: r.Enabled,
		LastFiredAt: r.LastFiredAt, LastSkippedAt: r.LastSkippedAt, LastSkipReason: strPtr(r.LastSkipReason),
		CreatedAt: r.CreatedAt}
}

// treasurySweepRequest is the body of POST /v1/treasury/accounts/{id}/sweeps.
type treasurySweepRequest struct {
	SourceBucketID string `json:"sourceBucketId" oas:"required"`
	DestBucketID   string `json:"destBucketId" oas:"required"`
	AmountUsd      string `json:"amountUsd" oas:"required,pattern=^[0-9]+(\\.[0-9]+)?$"`
	OwnerAddress   string `json:"ownerAddress,omitempty" oas:"pattern=^0x[0-9a-fA-F]{40}$" description:"required when the source bucket's Safe has several owners"`
}

type treasurySweepResponse struct {
	SweepID        string    `json:"sweepId" oas:"required"`
	AccountID      string    `json:"accountId" oas:"required"`
	RuleID         *string   `json:"ruleId" oas:"required"`
	SourceBucketID string    `json:"sourceBucketId" oas:"required"`
	DestBucketID   string    `json:"destBucketId" oas:"required"`
	AmountUsd      string    `json:"amountUsd" oas:"required"`
	Status         string    `json:"status" oas:"required,enum=PROPOSED|COMPLETED|FAILED|CANCELLED"`
	PaymentID      string    `json:"paymentId" oas:"required"`
	PaymentStatus  string    `json:"paymentStatus" oas:"required"`
	FailureReason  *string   `json:"failureReason" oas:"required"`
	CreatedAt      time.Time `json:"createdAt" oas:"required"`
}

type treasurySweepListResponse struct {
	Sweeps []treasurySweepResponse `json:"sweeps" oas:"required"`
	Total  int                     `json:"total" oas:"required"`
}

func toTreasurySweep(v treasuries.SweepView) treasurySweepResponse {
	s := v.Sweep
	return treasurySweepResponse{SweepID: s.ID, AccountID: s.AccountID, RuleID: strPtr(s.RuleID),
		SourceBucketID: s.SourceBucketID, DestBucketID: s.DestBucketID, AmountUsd: core.FormatUSD(s.AmountBaseUnits),
		Status: v.Status, PaymentID: s.PaymentID, PaymentStatus: v.PaymentStatus, FailureReason: strPtr(v.FailureReason),
		CreatedAt: s.CreatedAt}
}

// treasuryAdvanceRequest is the body of the sandbox clock helper.
type treasuryAdvanceRequest struct {
	Days *int `json:"days" oas:"required" description:"1 to 366"`
}

type treasuryAdvanceResponse struct {
	AccountID       string    `json:"accountId" oas:"required"`
	DaysAdvanced    int       `json:"daysAdvanced" oas:"required"`
	ClockOffsetDays int       `json:"clockOffsetDays" oas:"required"`
	SimulatedNow    time.Time `json:"simulatedNow" oas:"required" description:"The account's simulated time after the advance (RFC 3339, UTC)."`
}

func treasurySweepInput(r treasurySweepRequest) treasuries.SweepInput {
	return treasuries.SweepInput{SourceBucketID: r.SourceBucketID, DestBucketID: r.DestBucketID, AmountUsd: r.AmountUsd, OwnerAddress: r.OwnerAddress}
}
