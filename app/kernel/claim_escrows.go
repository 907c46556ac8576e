package kernel

import (
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// ClaimEscrows are the claim-escrow contracts per environment. A payment to an unknown phone
// checks one is there before it waits in PENDING_CLAIM, and the pending claims fund and release
// through it: both read the deployment's escrows, so neither asks the other.
type ClaimEscrows map[core.Environment]ports.ClaimEscrow

// Require returns env's claim escrow, or CHAIN_UNAVAILABLE when the deployment has none.
func (e ClaimEscrows) Require(env core.Environment) (ports.ClaimEscrow, error) {
	if c, ok := e[env]; ok && c != nil && c.ClaimEscrowAddress() != ([20]byte{}) {
		return c, nil
	}
	return nil, core.E(core.CodeChainUnavailable, "pending claims need the claim escrow contract, which is not configured for %s in this deployment", env)
}
