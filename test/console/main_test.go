// Package console holds black-box tests of the tenant console (/console/): HTTP-level tests of
// its sign-in, CSRF, Content-Security-Policy, roles and tenant isolation, and browser tests
// driving headless Chromium through the pages, against the real service and chain.
package console

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

func TestMain(m *testing.M) {
	harness.MainWithOptions(m, harness.Options{Chain: true, Modify: func(c *wiring.Config) {
		// Local webhook receivers are allowed in TEST, and deliveries go out quickly.
		c.Webhooks = webhooks.Config{RetryBase: 200 * time.Millisecond, RetryMax: 400 * time.Millisecond,
			Timeout: 3 * time.Second, DispatchInterval: 200 * time.Millisecond, AllowPrivateTest: true}
	}})
}

var env = harness.Shared
