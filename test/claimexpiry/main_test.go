// Package claimexpiry tests the two pending-claim expiry paths that need time travel, over
// HTTP against a server whose app clock the test moves, on its own database and its own
// simulated chain, whose clock it moves too (which would break other packages' claims):
//
//   - a redeemed claim whose recipient never confirms is refunded only after expiry plus the
//     escrow's grace period (funds win over expiry): LOCKED → REFUNDED, the payment
//     AWAITING_RECIPIENT_CONFIRMATION → REFUND_PENDING → REFUNDED;
//   - a claim that could never be funded (its expiry already in the chain's past) is
//     cancelled at expiry: the escrow id is tombstoned on chain, the claim and the payment
//     end CANCELED and the sender's hold is voided.
//
// The tests run one after the other (never t.Parallel): each moves the chain's clock.
package claimexpiry

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

func env() *harness.Env { return harness.Shared() }

// testClock is the app clock of a test's server: the wall clock (as ports.SystemClock, UTC and
// truncated to microseconds) plus an offset the test moves forward.
type testClock struct{ offset atomic.Int64 }

var _ ports.Clock = (*testClock)(nil)

func newClock(offset time.Duration) *testClock {
	c := &testClock{}
	c.offset.Store(int64(offset))
	return c
}

// Now implements ports.Clock.
func (c *testClock) Now() time.Time {
	return ports.SystemClock{}.Now().Add(time.Duration(c.offset.Load())).Truncate(time.Microsecond)
}

// Advance moves the clock forward by d.
func (c *testClock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// The simulated chain seals every block at max(wall clock, previous block + 1 s) and
// AdjustSimulatedTime seals one at (previous block + d). Its head time cannot be read through
// the adapter, so this package keeps bounds on it; only this package moves it:
//   - it is at least low (blocks are never sealed before the wall clock, and every jump adds
//     its whole amount to the head);
//   - it is at most the wall clock + ahead + blockSlack (ahead sums the jumps; every block
//     sealed faster than one a second adds a second, and the whole package mines far fewer
//     than blockSlack's worth).
var chainTime = struct {
	sync.Mutex
	low   time.Time
	ahead time.Duration
}{low: time.Now().Add(-time.Second)}

const blockSlack = 2 * time.Minute

// chainAtMost is an upper bound of the chain's head time, as an offset from the wall clock:
// an app clock this far ahead is never behind the chain.
func chainAtMost() time.Duration {
	chainTime.Lock()
	defer chainTime.Unlock()
	return chainTime.ahead + blockSlack
}

// advanceChainTo moves the simulated chain's clock forward so that its head is at least at.
func advanceChainTo(t *testing.T, at time.Time) {
	t.Helper()
	chainTime.Lock()
	defer chainTime.Unlock()
	d := at.Sub(chainTime.low).Truncate(time.Second) + time.Second
	if d < time.Second {
		return
	}
	if err := env().Chain.AdjustSimulatedTime(d); err != nil {
		t.Fatalf("adjust the simulated chain's time by %s: %v", d, err)
	}
	chainTime.low = chainTime.low.Add(d)
	chainTime.ahead += d
}
