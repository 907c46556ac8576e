// Package checkoutdepth checks the hosted payment page of a service that requires a single
// confirmation, in a browser: the one place its words are in the singular ("1 confirmation"),
// both as the page's script updates it and as the server renders it on a fresh load. The
// checkout package covers every state at a depth of 3; this one needs its own service.
package checkoutdepth

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/checkouts"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

func TestMain(m *testing.M) {
	harness.MainWithOptions(m, harness.Options{Chain: true, Modify: func(c *wiring.Config) {
		c.Checkout = checkouts.Config{Confirmations: 1, PollInterval: 200 * time.Millisecond}
	}})
}

var env = harness.Shared
