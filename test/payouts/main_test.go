// Package payouts tests the payout rails of phone payments over HTTP against the real service,
// a real Postgres and the simulated chain: the onchain provider's USDC transfer, the app-wallet
// providers' quotes.
package payouts

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestMain: the load journey queues hundreds of payout jobs at once, so polls get a window
// that the queue cannot outlast.
func TestMain(m *testing.M) {
	harness.MainWithOptions(m, harness.Options{Chain: true, Modify: func(c *wiring.Config) { c.Payouts.PollWindow = 2 * time.Minute }})
}

func env() *harness.Env { return harness.Shared() }
