package kernel

import (
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
