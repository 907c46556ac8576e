// Package crash holds the crash tests of issue #30: the real binary, built with the
// `crashpoints` tag, is killed with SIGKILL at a named point between an outside effect and its
// record, started again, and the effect must be neither lost nor repeated.
package crash

import (
	"testing"

	"corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainForBinary(m) }
