// Package webhooks holds black-box tests of events and webhooks over HTTP: events recorded with
// the state changes they announce and listed with filters; endpoints registered, rotated and
// isolated per tenant; deliveries signed with the documented recipe, retried until a 2xx with
// the same event id, redelivered on request; and LIVE's refusal of internal addresses.
package webhooks

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

func TestMain(m *testing.M) {
	harness.MainWithOptions(m, harness.Options{Chain: true, Modify: func(c *wiring.Config) {
		// Fast retries, so the third attempt comes within a test; local receivers allowed in TEST.
		c.Webhooks = webhooks.Config{RetryBase: 200 * time.Millisecond, RetryMax: 400 * time.Millisecond,
			Timeout: 3 * time.Second, DispatchInterval: 200 * time.Millisecond, AllowPrivateTest: true}
	}})
}

var env = harness.Shared
