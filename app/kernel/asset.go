package kernel

import (
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
)

// ServiceAsset is the asset of every tenant's service balance (docs/decisions/ledger.md). Finance reports
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

// defaultSourceChainIDs are docs/api.md's source chains (the sandbox on Base Sepolia's id, live on
// Base), used when wiring names no source chain for an environment.
var defaultSourceChainIDs = map[core.Environment]int64{core.EnvTest: 84532, core.EnvLive: 8453}

// Require is the chain and USDC token an environment's off-ramp payments and claims come from,
// as wiring decided them; without one the chain id is docs/api.md's and the token unknown (an empty
// address in sourceAssetId would be wrong, so the caller refuses with CHAIN_UNAVAILABLE).
func (s SourceChains) Require(env core.Environment) (SourceChain, error) {
	if c, ok := s.For(env); ok && c.USDC != "" {
		return c, nil
	}
	return SourceChain{ChainID: defaultSourceChainIDs[env]},
		core.E(core.CodeChainUnavailable, "no USDC source chain is configured for %s in this deployment", env)
}
