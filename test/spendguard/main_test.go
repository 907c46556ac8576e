// Package spendguard holds black-box tests of the spend guard over HTTP, on the simulated
// chain, with spend policies enforced: agent keys confined to their own wallet on every route
// that spends the tenant's money, custody signing only what it can state as (token, amount,
// recipient), agent caps reserved at acceptance, refunds passing the service balance's policy,
// and the spend-path sweep that puts every write route of the route table to each principal.
package spendguard

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/checkouts"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// confirmations is the depth a checkout's payment needs in these tests.
const confirmations = 1

func TestMain(m *testing.M) {
	harness.MainWithOptions(m, harness.Options{Chain: true, Modify: func(c *wiring.Config) {
		c.PolicyEnforcement = policy.ModeEnforce
		c.Checkout = checkouts.Config{Confirmations: confirmations, PollInterval: 200 * time.Millisecond}
	}})
}

var env = harness.Shared
