// Package ledger holds black-box tests of the ledger: the Postgres store under concurrency
// (through the same unit of work the use cases use), `corridor ledger verify`'s checks, and the
// balance, deposit and finance endpoints over HTTP, against a real PostgreSQL.
package ledger

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }

var env = harness.Shared
