// Package treasury holds black-box tests of treasury accounts over HTTP on the dev chain:
// bucket Safes, the live view, rules fired by the sandbox clock helper, sweeps signed by an
// owner and executed on chain, simulated yield on the ledger, and the refusals.
package treasury

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

var env = harness.Shared
