// Package chainstall attacks the running service with a chain node that accepts connections
// and never answers: chain-dependent requests answer 503 CHAIN_UNAVAILABLE within the node's
// deadline, and everything else keeps answering, because no chain call runs inside a database
// transaction and so none holds a pooled connection.
package chainstall

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// rpcTimeout is the chain deadline of this package's service (CHAIN_RPC_TIMEOUT).
const rpcTimeout = 2 * time.Second

// poolSize is small, so that requests holding connections while they wait on the node would
// exhaust it at once.
const poolSize = 8

func TestMain(m *testing.M) {
	harness.MainWithOptions(m, harness.Options{Chain: true, StallableChain: true, ChainRPCTimeout: rpcTimeout,
		Modify: func(c *wiring.Config) { c.DBMaxConns = poolSize }})
}
