// Package ramps holds black-box tests of sandbox ramps over HTTP on the dev chain: the on-ramp
// credit reaching the Safe and the ledger mirror, the off-ramp's Safe payment signed into
// CONFIRMED or cancelled into FAILED, both caps under parallel requests, idempotent retries,
// validation, isolation and LIVE refusal; and the identity and status reads.
package ramps

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// Caps small enough to reach: 100 USD per on-ramp, 1050 USD per tenant per 24 hours (ten
// on-ramps of 100 fit, the eleventh does not).
const (
	maxAmountUsd = 100
	dailyCapUsd  = 1050
)

func TestMain(m *testing.M) {
	harness.MainWithChainConfig(m, func(c *wiring.Config) {
		c.Ramps = wiring.RampConfig{MaxAmountUsd: maxAmountUsd, DailyCapUsd: dailyCapUsd}
	})
}

var env = harness.Shared
