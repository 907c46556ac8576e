package http

import "github.com/corridorhq/corridor/core/auth"

// secondaryEndpoints are the wallet routes of the secondary surface (docs/api.md "Secondary
// documented shapes", docs/decisions/checkout.md): snake_case, errors in the secondary shape, mapped onto wallets,
// Safe payments and the ledger. POST /v1/wallets is shared with the canonical surface and
// stays in walletEndpoints (its body's shape selects the surface).
func (h *walletsHandlers) secondaryEndpoints() []Endpoint {
	pathID := []Param{{Name: "id", In: "path", Description: "the wallet's id (wal_…)"}}
	history := []Param{
		{Name: "limit", In: "query", Integer: true, Description: "1 to 100, default 100"},
		{Name: "offset", In: "query", Integer: true, Description: "0 to 1000"},
		{Name: "currency", In: "query", Description: "USDC"},
		{Name: "type", In: "query", Description: "payment (received), withdrawal (sent) or refund"},
		{Name: "status", In: "query", Description: "awaiting_signature, signing, ready_to_execute, executing, completed, failed or cancelled"},
	}
	dates := []Param{
		{Name: "from_date", In: "query", Description: "RFC 3339 instant or YYYY-MM-DD (inclusive)"},
		{Name: "to_date", In: "query", Description: "RFC 3339 instant (exclusive) or YYYY-MM-DD (inclusive)"},
	}
	read := []auth.Scope{auth.ScopeWalletsRead, auth.ScopePaymentsRead}
	return []Endpoint{
		{Method: "GET", Path: "/v1/wallets/{id}/balance", Summary: "Secondary: a wallet's live balances with their USD value", Tag: "secondary",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeWalletsRead}, Params: pathID, SecondaryErrors: true,
			Responses: map[int]any{200: secondaryBalanceResponse{}, 404: secondaryErrorResponse{}, 503: secondaryErrorResponse{}}, Handler: h.secondaryBalance},
		{Method: "GET", Path: "/v1/wallets/{id}/transactions", Summary: "Secondary: a wallet's Safe payments and on-chain USDC movements, newest first", Tag: "secondary",
			Auth: authRequired, Scopes: read, Params: append(pathID, history...), SecondaryErrors: true,
			Responses: map[int]any{200: secondaryTransactionListResponse{}, 404: secondaryErrorResponse{}}, Handler: h.secondaryWalletTransactions},
		{Method: "POST", Path: "/v1/wallets/{id}/send", Summary: "Secondary: send USDC to an address (a Safe payment awaiting its owners' signatures)", Tag: "secondary",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsCreate, auth.ScopeWalletsRead}, Params: pathID, Request: secondarySendRequest{}, SecondaryErrors: true,
			Responses: map[int]any{201: secondarySendResponse{}, 403: secondaryErrorResponse{}, 404: secondaryErrorResponse{}, 503: secondaryErrorResponse{}}, Prepare: h.secondarySend},
		{Method: "GET", Path: "/v1/transactions", Summary: "Secondary: every wallet's Safe payments and on-chain USDC movements, newest first", Tag: "secondary",
			Auth: authRequired, Scopes: read, Params: append(append([]Param{}, history...), dates...), SecondaryErrors: true,
			Responses: map[int]any{200: secondaryTransactionListResponse{}}, Handler: h.secondaryTransactions},
	}
}
