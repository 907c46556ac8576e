// Package offramp tests phone aliases, credentials, payout destinations (and, when built, the
// off-ramp payments) over HTTP against the real service and a real Postgres.
package offramp

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }

func env() *harness.Env { return harness.Shared() }
