package kernel

import (
	"corridor/core"
	"corridor/ledger"
)

// ServiceAsset is the asset of every tenant's service balance (DESIGN.md D6). Finance reports
// it and off-ramp payments spend it, so both name it from here.
const ServiceAsset = ledger.AssetUSDC

// SourceChain is the chain an environment's USDC lives on and the token contract there: the
// one the wallets hold, the claim escrow locks and an off-ramp payment's sourceAssetId names.
type SourceChain struct {
	ChainID int64
	USDC    string
}

// SourceChains are the source chains per environment, decided once by wiring (the chain
// adapter's token where one is configured, the configured address otherwise) so capabilities,
// payments and claims cannot name different tokens for one chain.
type SourceChains map[core.Environment]SourceChain

// For returns the environment's source chain; ok is false when the deployment has none.
func (s SourceChains) For(env core.Environment) (SourceChain, bool) {
	c, ok := s[env]
	return c, ok && c.ChainID != 0
}
