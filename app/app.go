// Package app holds Corridor's use cases. Each is one unit of work: it loads aggregates, asks
// core for the transition, saves, and (in later capabilities) posts ledger transfers and
// enqueues jobs in the same transaction. It never sees HTTP or SQL.
package app

import (
	"errors"
	"time"

	"corridor/ports"
)

// Deps are the ports the use cases need.
type Deps struct {
	Store    ports.Store
	Identity ports.Identity
	Clock    ports.Clock
	// IdempotencyTTL is how long a POST outcome is replayable (D5: 24 h).
	IdempotencyTTL time.Duration
}

// App is the set of use cases.
type App struct {
	store          ports.Store
	identity       ports.Identity
	clock          ports.Clock
	idempotencyTTL time.Duration
}

// New checks the wiring and fails at start-up when a dependency is missing.
func New(d Deps) (*App, error) {
	switch {
	case d.Store == nil:
		return nil, errors.New("app: Store is required")
	case d.Identity == nil:
		return nil, errors.New("app: Identity is required")
	}
	if d.Clock == nil {
		d.Clock = ports.SystemClock{}
	}
	if d.IdempotencyTTL <= 0 {
		d.IdempotencyTTL = 24 * time.Hour
	}
	return &App{store: d.Store, identity: d.Identity, clock: d.Clock, idempotencyTTL: d.IdempotencyTTL}, nil
}

// Store exposes the unit of work to adapters that compose with it (the HTTP idempotency layer).
func (a *App) Store() ports.Store { return a.store }

// Now is the application clock.
func (a *App) Now() time.Time { return a.clock.Now() }

// clampPage applies the list bounds of DESIGN.md §4.
func clampPage(p ports.Page) ports.Page {
	if p.Skip < 0 {
		p.Skip = 0
	}
	if p.Take <= 0 || p.Take > ports.MaxTake {
		p.Take = ports.MaxTake
	}
	return p
}
