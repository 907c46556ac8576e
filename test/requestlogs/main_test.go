// Package requestlogs holds black-box tests of the tenant's request log over HTTP.
package requestlogs

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }

var env = harness.Shared
