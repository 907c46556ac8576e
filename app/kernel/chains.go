package kernel

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// Chains are the configured chains per environment. One deployment serves TEST and LIVE (docs/decisions/tenancy.md),
// and either may have no chain: the operations that need one then answer CHAIN_UNAVAILABLE
// instead of failing at start-up.
type Chains map[core.Environment]ports.Chain

// Chain returns the environment's chain or CHAIN_UNAVAILABLE.
func (c Chains) Chain(env core.Environment) (ports.Chain, error) {
	if chain, ok := c[env]; ok && chain != nil {
		return chain, nil
	}
	return nil, core.E(core.CodeChainUnavailable, "no chain is configured for %s in this deployment", env)
}

// ChainFor is the environment's chain, which must be the chain an object (a wallet, a drip)
// names: a deployment serves one chain per environment, and an object recorded on another
// cannot be acted on here.
func (c Chains) ChainFor(env core.Environment, chainID int64) (ports.Chain, error) {
	chain, err := c.Chain(env)
	if err != nil {
		return nil, err
	}
	if chain.ChainID() != chainID {
		return nil, core.E(core.CodeChainUnavailable, "chain %d is not served in %s by this deployment (it serves %d)", chainID, env, chain.ChainID())
	}
	return chain, nil
}

// CardModules are the card spend modules per environment (the chain adapters that serve one).
type CardModules map[core.Environment]ports.CardSpendModule

// Module is the environment's card spend module, nil when it has none (or one with no address).
func (m CardModules) Module(env core.Environment) ports.CardSpendModule {
	if module, ok := m[env]; ok && module != nil && module.CardModuleAddress() != (common.Address{}) {
		return module
	}
	return nil
}
