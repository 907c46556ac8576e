// Package payouts tests the payout rails of phone payments over HTTP against the real service,
// a real Postgres and the simulated chain: the onchain provider's USDC transfer, the app-wallet
// providers' quotes.
package payouts

import (
	"testing"

	"corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

func env() *harness.Env { return harness.Shared() }
