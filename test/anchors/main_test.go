// Package anchors holds black-box tests of the ledger's anchors on chain: the relayer's anchor
// pass over a real PostgreSQL and a simulated chain served over HTTP, `corridor ledger verify
// --anchors` and `corridor ledger proof` run as the operator runs them, and an auditor's check
// of an exported proof written here from the documented recipe alone.
package anchors

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }
