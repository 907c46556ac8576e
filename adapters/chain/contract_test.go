package chain

import (
	"testing"

	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/portstest"
)

// TestChainReadsContract holds the simulated chain to the chain-read contract that ports/fake's
// in-memory chain meets too.
func TestChainReadsContract(t *testing.T) {
	shared := newChain(t)
	portstest.ChainReads(t, func(*testing.T) ports.Chain { return shared })
}
