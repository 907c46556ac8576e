// Package cluster holds the tests of several replicas on one primary with a streaming standby
// (issue #32): reads served by the standby within its lag bound, and a load journey across
// replicas while one is killed and the standby lags.
package cluster

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }
