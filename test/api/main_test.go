// Package api holds black-box tests of the foundation over HTTP against a real PostgreSQL.
package api

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }

var env = harness.Shared
