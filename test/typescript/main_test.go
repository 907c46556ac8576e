// Package typescript installs the packed TypeScript SDK into a project of its own and runs a
// typed program with it against a throwaway service, as a partner would after `npm install`.
package typescript

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }

var env = harness.Shared
