// Package twofa holds black-box tests of contacts and two-factor approval over HTTP on the
// simulated chain: contacts and their cooling-off window, TOTP factors, approval settings, the
// challenge handshake with codes generated from the enrolled secret, and the order of propose's
// gates.
package twofa

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

func env() *harness.Env { return harness.Shared() }

// testClock is the app clock of a test's own server: the wall clock plus an offset the test
// moves forward.
type testClock struct{ offset atomic.Int64 }

var _ ports.Clock = (*testClock)(nil)

func (c *testClock) Now() time.Time {
	return ports.SystemClock{}.Now().Add(time.Duration(c.offset.Load())).Truncate(time.Microsecond)
}

func (c *testClock) Advance(d time.Duration) { c.offset.Add(int64(d)) }
