package http

import "github.com/corridorhq/corridor/core/auth"

// ledgerEndpoints are the routes of the ledger capability (balances, sandbox deposits, finance).
// Scopes (docs/decisions/README.md, "Ledger"): the service balance is payments:read, a sandbox
// deposit payments:create (TEST only), and every finance read treasury:read.
func (h *financeHandlers) ledgerEndpoints() []Endpoint {
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	window := []Param{
		{Name: "from", In: "query", Description: "RFC 3339; only transfers created at or after it"},
		{Name: "to", In: "query", Description: "RFC 3339; only transfers created before it"},
	}
	asOf := Param{Name: "asOf", In: "query", Description: "RFC 3339; balances as of this instant, recomputed from the ledger's history"}
	finance := []auth.Scope{auth.ScopeTreasuryRead}
	exportPaging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"},
		{Name: "take", In: "query", Integer: true, Description: "at most 100 (JSON) or 10000 (CSV)"}}
	return []Endpoint{
		{Method: "GET", Path: "/v1/balances", Summary: "The caller's service balance per asset: available, held and total", Tag: "balances",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsRead}, Params: []Param{asOf},
			Responses: map[int]any{200: Content{"application/json": balancesResponse{}, "text/csv": ""}}, Handler: h.getBalances},
		{Method: "POST", Path: "/v1/sandbox/balance-deposits", Summary: "TEST only: credit the caller's service balance from the sandbox pool", Tag: "balances",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsCreate}, Request: depositRequest{},
			Responses: map[int]any{201: depositResponse{}, 403: Envelope{}}, Handler: h.createDeposit},
		{Method: "GET", Path: "/v1/ledger/accounts", Summary: "The caller's ledger accounts with balances (now or as of an instant)", Tag: "ledger",
			Auth: authRequired, Scopes: finance, Params: append([]Param{asOf}, paging...),
			Responses: map[int]any{200: Content{"application/json": ledgerAccountListResponse{}, "text/csv": ""}}, Handler: h.listLedgerAccounts},
		{Method: "GET", Path: "/v1/ledger/accounts/{id}/statement", Summary: "An account statement with running balances over [from, to) or up to asOf; Accept: text/csv for CSV", Tag: "ledger",
			Auth: authRequired, Scopes: finance,
			Params:    append(append([]Param{{Name: "id", In: "path"}, {Name: "asOf", In: "query", Description: "RFC 3339; the statement up to and including this instant (instead of to)"}}, window...), exportPaging...),
			Responses: map[int]any{200: Content{"application/json": statementResponse{}, "text/csv": ""}, 404: Envelope{}}, Handler: h.accountStatement},
		{Method: "GET", Path: "/v1/ledger/entries", Summary: "Journal entries touching the caller's accounts; ?format=csv exports CSV (text/csv, see docs/ledger.md)", Tag: "ledger",
			Auth: authRequired, Scopes: finance,
			Params: append(append([]Param{
				{Name: "format", In: "query", Description: "json (default) or csv; a CSV page holds up to 10000 transfers"},
				{Name: "accountId", In: "query", Description: "only entries touching this account of the caller"},
			}, window...), Param{Name: "skip", In: "query", Integer: true, Description: "at most 10000"},
				Param{Name: "take", In: "query", Integer: true, Description: "at most 100 (JSON) or 10000 (CSV)"}),
			Responses: map[int]any{200: Content{"application/json": entryListResponse{}, "text/csv": ""}, 404: Envelope{}}, Handler: h.listEntries},
		{Method: "GET", Path: "/v1/ledger/trial-balance", Summary: "The caller's trial balance per asset, now or as of an instant; balanced means it sums to zero", Tag: "ledger",
			Auth: authRequired, Scopes: finance, Params: []Param{{Name: "asOf", In: "query", Description: "RFC 3339; the trial balance as of this instant, recomputed from the accounts' history"}},
			Responses: map[int]any{200: Content{"application/json": trialBalanceResponse{}, "text/csv": ""}}, Handler: h.trialBalance},
		{Method: "GET", Path: "/v1/balance-transactions", Summary: "Every movement of the caller's balances with its object, gross, fee and net; Accept: text/csv for CSV", Tag: "ledger",
			Auth: authRequired, Scopes: finance, Params: append(append([]Param{}, window...), exportPaging...),
			Responses: map[int]any{200: Content{"application/json": balanceTransactionListResponse{}, "text/csv": ""}}, Handler: h.listBalanceTransactions},
		{Method: "GET", Path: "/v1/ledger/reconciliation", Summary: "Per wallet: the ledger mirror's USDC balance, the live on-chain balance and the drift, with the indexer's block (docs/chain.md)", Tag: "ledger",
			Auth: authRequired, Scopes: finance,
			Responses: map[int]any{200: reconciliationResponse{}, 503: Envelope{}}, Handler: h.ledgerReconciliation},
	}
}
