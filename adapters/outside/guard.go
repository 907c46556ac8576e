// Package outside guards the calls that leave the process (card issuer, SMS gateway, screening
// vendor, payout providers, chain writes). docs/decisions/reliability.md: no such call may run while a unit of
// work's transaction is open, because a slow or hung vendor would then hold row locks (and, with
// the commit pipeline, a whole batch), and a rolled-back unit could not take the call back.
//
// The decorators here wrap each port; the chain adapter calls Check itself at its one send
// point. Nothing is checked until Enforce installs a guard: tests (test/harness) install one for
// every black-box suite, so a use case that calls out inside InTx fails its suite.
package outside

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/corridorhq/corridor/core"
)

// Guard records and refuses outside calls made while a transaction is open.
type Guard struct {
	inUnit     func(ctx context.Context) bool
	mu         sync.Mutex
	violations []string
}

// maxViolations bounds what a guard remembers; one is enough to fail a suite.
const maxViolations = 100

var installed atomic.Pointer[Guard]

// Enforce installs a process-wide guard that asks inUnit whether a context carries an open
// transaction (postgres.InUnitOfWork), and returns it so a test can read its violations.
// Installing again replaces the earlier guard.
func Enforce(inUnit func(ctx context.Context) bool) *Guard {
	if inUnit == nil {
		panic("outside: Enforce needs a transaction detector")
	}
	g := &Guard{inUnit: inUnit}
	installed.Store(g)
	return g
}

// Check refuses call when the installed guard finds a transaction open in ctx. The refusal is
// an INTERNAL error (a programming error, never a client's), and it is recorded.
func Check(ctx context.Context, call string) error {
	g := installed.Load()
	if g == nil || !g.inUnit(ctx) {
		return nil
	}
	g.mu.Lock()
	if len(g.violations) < maxViolations {
		g.violations = append(g.violations, call)
	}
	g.mu.Unlock()
	return core.E(core.CodeInternal, "%s called inside a unit of work (docs/decisions/reliability.md: outside calls run after commit)", call)
}

// Violations lists the calls refused so far, in order.
func (g *Guard) Violations() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.violations...)
}

// Err summarises the violations, nil when there were none.
func (g *Guard) Err() error {
	v := g.Violations()
	if len(v) == 0 {
		return nil
	}
	return fmt.Errorf("outside calls inside a unit of work: %v", v)
}
