// Package cards tests the card capability over HTTP against a real database and the simulated
// sandbox chain with the card spend module deployed: issuance from DEPLOYED module-enabled
// wallets, limits, freeze, authorizations in docs/decisions/cards.md's order with their ledger holds, concurrency
// on one card's windows, idempotent retries, settlement on chain with zero drift and the
// policy gate.
package cards

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

func env() *harness.Env { return harness.Shared() }
