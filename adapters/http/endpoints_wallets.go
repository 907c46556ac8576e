package http

import "github.com/corridorhq/corridor/core/auth"

// walletEndpoints are the routes of wallets; the faucet's (endpoints_faucet.go) and the handle
// directory's follow them in the route table.
func (h *walletsHandlers) walletEndpoints() []Endpoint {
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	pathID := []Param{{Name: "id", In: "path"}}
	return []Endpoint{
		{Method: "POST", Path: "/v1/wallets", Summary: "Create a Safe wallet: its predicted address is returned at once and a job deploys it. A secondary-shaped body (customer_id, currencies, and owner_address for a wallet the partner owns; without it a custodial wallet the service signs for) answers the secondary shape", Tag: "wallets",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeWalletsWrite}, Request: OneOf{walletCreateRequest{}, secondaryWalletCreateRequest{}},
			SecondaryBody: isSecondaryWalletBody,
			Responses:     map[int]any{201: OneOf{walletResponse{}, secondaryWalletResponse{}}, 429: Envelope{}, 503: Envelope{}}, Prepare: h.createWalletEither},
		{Method: "GET", Path: "/v1/wallets", Summary: "List wallets of the caller's environment", Tag: "wallets",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeWalletsRead}, Params: paging,
			Responses: map[int]any{200: walletListResponse{}}, Handler: h.listWallets},
		{Method: "GET", Path: "/v1/wallets/{id}", Summary: "A wallet with live USDC and ETH balances (null when the chain cannot be read)", Tag: "wallets",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeWalletsRead}, Params: pathID,
			Responses: map[int]any{200: walletDetailResponse{}, 404: Envelope{}}, Handler: h.getWallet},
	}
}

// directoryEndpoints are the routes of the handle directory. Claiming a handle (scope not shown
// in docs/api.md) takes wallets:write, as it publishes a wallet.
func (h *walletsHandlers) directoryEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "PUT", Path: "/v1/directory/handle", Summary: "Claim a directory handle for one of the caller's wallets, or re-point it", Tag: "directory",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeWalletsWrite}, Request: handlePutRequest{},
			Responses: map[int]any{200: handleInfoResponse{}, 404: Envelope{}, 409: Envelope{}}, Handler: h.putHandle},
	}
}
