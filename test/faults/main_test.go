// Package faults puts network faults between the running service and what it dials, and
// asserts that no money is lost or doubled, that the service answers 503 SERVICE_UNAVAILABLE
// for what it cannot do, and that it recovers without an operator (issue #30, item 4).
//
// The database faults run on a second service whose DATABASE_URL points at a fault proxy
// (test/harness/faultproxy) in front of the package's PostgreSQL; the chain faults run on the
// package's simulated chain through a client that can take a transaction and then stop
// answering (sendSwallower). The provider faults (issue #30, item 5) run through a payout
// provider decorator (flakyProvider) and signed webhooks; the partner webhook faults through a
// fault proxy in front of the receiver. CORRIDOR_CHAOS=1 runs the longer variants.
package faults

import (
	"os"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// rpcTimeout is the chain deadline of the package's service (CHAIN_RPC_TIMEOUT).
const rpcTimeout = 2 * time.Second

// swallower is the package's chain node client (see sendSwallower).
var swallower = &sendSwallower{}

func TestMain(m *testing.M) {
	harness.MainWithOptions(m, harness.Options{Chain: true, StallableChain: true, ChainRPCTimeout: rpcTimeout,
		ChainIntercept: func(c chain.Client) chain.Client { swallower.Client = c; return swallower },
		Modify: func(c *wiring.Config) {
			c.Payouts.Decorate = flaky.decorate
			// Fast retries and a short time-out, so a receiver that does not answer is retried
			// within a test; local receivers allowed in TEST.
			c.Webhooks = webhooks.Config{RetryBase: 200 * time.Millisecond, RetryMax: 400 * time.Millisecond,
				Timeout: time.Second, DispatchInterval: 200 * time.Millisecond, AllowPrivateTest: true}
		}})
}

// chaos reports the long variants (CORRIDOR_CHAOS=1, `make chaos`).
func chaos() bool { return os.Getenv("CORRIDOR_CHAOS") == "1" }

// scale is n, or n times factor under CORRIDOR_CHAOS.
func scale(n, factor int) int {
	if chaos() {
		return n * factor
	}
	return n
}
