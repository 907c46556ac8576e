// Package mirror holds black-box tests of the ledger mirror: USDC moved on the (simulated)
// sandbox chain shows up in the ledger through the indexer, and GET /v1/ledger/reconciliation
// compares the two, against a real PostgreSQL.
package mirror

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

var env = harness.Shared
