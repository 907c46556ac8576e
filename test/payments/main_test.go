// Package payments holds black-box tests of Safe payments over HTTP, end to end on
// go-ethereum's simulated chain with the real Safe v1.4.1 contracts and TestUSDC: propose,
// sign with owner keys, auto-execute and explicit execute, cancel, and the refusals.
package payments

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

var env = harness.Shared
