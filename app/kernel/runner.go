package kernel

import (
	"context"
	"errors"
)

// A use case has one shape: it prepares, outside any transaction (the reads and outside calls
// its decision needs: the chain, screening, a webhook host's address), then applies, inside one
// unit of work. The runner below is the one place that opens that unit for a request, whether
// or not the request carries an Idempotency-Key, so the transaction boundary never depends on
// what the client sent; with a key, the same unit claims the key and stores the outcome.
// Work that happens after the answer (chain writes, payouts, webhooks) is a job the unit
// enqueues.

// Prepare is a use case's first step. It runs outside any transaction and returns the step
// that applies what it prepared.
type Prepare func(ctx context.Context) (Apply, error)

// Apply is a use case's second step. It runs inside the runner's unit of work (every unit the
// use case opens joins it as a savepoint) and must not leave the process.
type Apply func(ctx context.Context) (Outcome, error)

// Run runs prepare outside any transaction, then its Apply inside one unit of work; both see
// one set of prepared answers (WithPrepared). With a key
// (req.Key set) the unit also claims the key, replays a stored outcome instead of applying,
// and stores the new outcome with the effect (Idempotent). A prepare that refuses a request
// whose key already holds an outcome still replays it: the retry of a payment signed a moment
// ago finds the payment signed, and must get the first answer, not a refusal.
func (s *Idempotency) Run(ctx context.Context, req IdempotentRequest, prepare Prepare) (Outcome, bool, error) {
	ctx = WithPrepared(ctx)
	apply, err := prepare(ctx)
	if err != nil {
		if req.Key == "" || !s.hasOutcome(ctx, req) {
			return Outcome{}, false, err
		}
		refused := err
		apply = func(context.Context) (Outcome, error) { return Outcome{}, refused }
	}
	if req.Key == "" {
		var out Outcome
		err := s.store.InTx(ctx, func(ctx context.Context, _ txView) error {
			var err error
			out, err = apply(ctx)
			return err
		})
		return out, false, err
	}
	return s.Idempotent(ctx, req, apply)
}

// Applied is the Prepare of a use case that needs nothing from outside: it applies directly.
func Applied(apply Apply) Prepare {
	return func(context.Context) (Apply, error) { return apply, nil }
}

// hasOutcome reports whether req's key holds a stored, unexpired outcome (whatever its
// fingerprint: Idempotent then replays it or answers IDEMPOTENCY_KEY_REUSED).
func (s *Idempotency) hasOutcome(ctx context.Context, req IdempotentRequest) bool {
	var found bool
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		_, found, err = tx.Idempotency().Find(ctx, req.Scope, req.Environment, req.Key, s.clock.Now())
		return err
	})
	return err == nil && found
}

// MustRunAgain reports a serialization failure or a deadlock (SQLSTATE 40001, 40P01) that a
// use case's savepoint met inside the runner's unit, or a lock wait a commit pipeline's batch
// gave up (55P03, lock_not_available: only a batch sets lock_timeout, and it runs that unit
// again first in its next batch): the whole unit must run again, so the caller passes it on
// to the store, which runs it again, instead of answering it. An error answered instead would
// be logged as unhandled and rendered as a 500 the unit's next run then replaces.
func MustRunAgain(err error) bool {
	var state interface{ SQLState() string }
	if !errors.As(err, &state) {
		return false
	}
	switch state.SQLState() {
	case "40001", "40P01", "55P03":
		return true
	}
	return false
}
