// Package citus holds the black-box tests that only mean something on a Citus cluster: a
// tenant's shards moved to the other worker while its requests keep coming. They run in
// `make test-citus` (CORRIDOR_TESTDB_SOURCE=citus); elsewhere the package says so and passes.
// They also kill a worker and the coordinator under a load of deposits and card
// authorizations (the cards need the simulated chain); `make chaos` runs those longer.
package citus

import (
	"fmt"
	"os"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) {
	if os.Getenv("CORRIDOR_TESTDB_SOURCE") != "citus" {
		fmt.Println("test/citus: runs on a Citus cluster only (make test-citus, CORRIDOR_TESTDB_SOURCE=citus)")
		os.Exit(0)
	}
	harness.MainWithChain(m)
}

func env() *harness.Env { return harness.Shared() }
