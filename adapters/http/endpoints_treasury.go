package http

import "github.com/corridorhq/corridor/core/auth"

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
