// Package invoices holds black-box tests of escrow invoices and bills over HTTP on the dev
// chain: the hold Safe funded from the faucet, the balance poller (driven by the sandbox clock
// helper: the periodic poller runs here only at start, so every poll is the test's), release
// and refund signed by two of payer, payee and the platform arbiter, the refusals, and bills
// signed with EIP-712.
package invoices

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

func TestMain(m *testing.M) {
	harness.MainWithOptions(m, harness.Options{Chain: true, Modify: func(c *wiring.Config) {
		c.InvoicePollInterval = time.Hour
	}})
}

var env = harness.Shared
