// Package agents holds black-box tests of agents over HTTP, on go-ethereum's simulated chain
// for the wallet and payment parts: keys stripped of the forbidden scopes, suspension at the
// authentication layer, limits, the agent's Safe, spend caps on Safe payments, the activity
// timeline, and (at the application level) the card budget seam.
package agents

import (
	"testing"

	"corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

var env = harness.Shared
