package http

import "github.com/corridorhq/corridor/core/auth"

// faucetEndpoints are the sandbox faucet's routes: fund a TEST wallet, read its drips.
func (h *faucetHandlers) faucetEndpoints() []Endpoint {
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	pathID := []Param{{Name: "id", In: "path"}}
	fund := []auth.Scope{auth.ScopeWalletsFund}
	return []Endpoint{
		{Method: "POST", Path: "/v1/wallets/{id}/fund", Summary: "TEST only: fund a wallet from the faucet (usdc default 250, max 1000; eth default and max 0.02)", Tag: "faucet",
			Auth: authRequired, Scopes: fund, SandboxOnly: true, Params: pathID, Request: fundRequest{},
			Responses: map[int]any{201: dripResponse{}, 403: Envelope{}, 404: Envelope{}, 429: Envelope{}, 503: Envelope{}}, Handler: h.fundWallet},
		{Method: "GET", Path: "/v1/faucet/drips", Summary: "TEST only: list faucet drips, newest first", Tag: "faucet",
			Auth: authRequired, Scopes: fund, SandboxOnly: true,
			Params:    append([]Param{{Name: "walletId", In: "query", Description: "only drips of this wallet"}}, paging...),
			Responses: map[int]any{200: dripListResponse{}, 404: Envelope{}}, Handler: h.listDrips},
		{Method: "GET", Path: "/v1/faucet/drips/{dripId}", Summary: "TEST only: a faucet drip", Tag: "faucet",
			Auth: authRequired, Scopes: fund, SandboxOnly: true, Params: []Param{{Name: "dripId", In: "path"}},
			Responses: map[int]any{200: dripResponse{}, 404: Envelope{}}, Handler: h.getDrip},
	}
}
