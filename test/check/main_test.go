// Package check holds the black-box tests of `corridor check`: it passes on a healthy database
// after a workload, and names each corruption planted with SQL, exiting non-zero.
package check

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

func env() *harness.Env { return harness.Shared() }
