// Package checkout holds black-box tests of hosted checkout over HTTP and in a browser: a
// checkout created in the secondary shape, paid on the simulated chain, watched from created
// through pending to completed (each webhook verified with the documented recipe), expired,
// under- and overpaid, refunded once per key and never beyond what it received, isolated per
// tenant, and its payment page turning completed on a phone without a reload.
package checkout

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/checkouts"
	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// confirmations is the depth the tests' service requires.
const confirmations = 3

func TestMain(m *testing.M) {
	harness.MainWithOptions(m, harness.Options{Chain: true, Modify: func(c *wiring.Config) {
		c.Checkout = checkouts.Config{Confirmations: confirmations, PollInterval: 200 * time.Millisecond}
		c.Webhooks = webhooks.Config{RetryBase: 200 * time.Millisecond, RetryMax: 400 * time.Millisecond,
			Timeout: 3 * time.Second, DispatchInterval: 200 * time.Millisecond, AllowPrivateTest: true}
	}})
}

var env = harness.Shared
