package kernel

import (
	"context"
	"errors"
	"sync"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// An outside read is a call that leaves the process only to learn something (screening), made
// for a decision a unit of work takes. docs/decisions/reliability.md forbids making it while the unit's
// transaction is open, and the unit cannot know the question before it has read its rows. So
// the unit asks: OutsideRead answers from the outermost unit's memo, or fails the unit with a
// request; OutsideReadsStore rolls the unit back, makes the call outside any transaction,
// remembers the answer and runs the unit again, which then finds it. Units of work are
// re-runnable by the store's contract (serialization retries, the commit pipeline), so a second
// run is safe.

// maxOutsideReadPasses bounds the runs of one unit: each pass learns one more answer (a pass
// that re-evaluates several held payments asks once per payment); a unit whose questions keep
// changing fails instead of looping.
const maxOutsideReadPasses = 32

type memoKey struct{}

// outsideMemo holds the answers learned for one outermost unit of work, across its runs.
type outsideMemo struct {
	mu      sync.Mutex
	answers map[string]outsideAnswer
}

type outsideAnswer struct {
	value any
	err   error
}

// needOutside is the request a unit fails with: run read outside the transaction, then again.
type needOutside struct {
	key  string
	read func(ctx context.Context) (any, error)
}

func (n *needOutside) Error() string {
	return "unit of work needs an outside read (" + n.key + ") before it can decide"
}

// OutsideRead returns read's answer for key, read outside any transaction. Under
// OutsideReadsStore it answers from the memo or fails the unit to have it read first; without
// one (a use-case test over fakes) it reads directly. key must name everything the answer
// depends on.
func OutsideRead[T any](ctx context.Context, key string, read func(ctx context.Context) (T, error)) (T, error) {
	memo, ok := ctx.Value(memoKey{}).(*outsideMemo)
	if !ok {
		return read(ctx)
	}
	memo.mu.Lock()
	answer, found := memo.answers[key]
	memo.mu.Unlock()
	if !found {
		var zero T
		return zero, &needOutside{key: key, read: func(ctx context.Context) (any, error) { return read(ctx) }}
	}
	value, _ := answer.value.(T)
	return value, answer.err
}

// IsOutsideReadRequest reports the error OutsideRead fails a unit with: a caller that turns
// errors into decisions (screening failing closed) must pass it on instead.
func IsOutsideReadRequest(err error) bool {
	var need *needOutside
	return errors.As(err, &need)
}

// OutsideReadsStore is a store whose outermost units of work may ask for outside reads.
type OutsideReadsStore struct{ ports.Store }

var _ ports.Store = OutsideReadsStore{}

// InTx runs fn; a nested unit (the context already carries a memo) passes its requests up to
// the outermost one, which alone may read, since only it runs outside any transaction.
func (s OutsideReadsStore) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	if _, nested := ctx.Value(memoKey{}).(*outsideMemo); nested {
		return s.Store.InTx(ctx, fn)
	}
	memo := &outsideMemo{answers: map[string]outsideAnswer{}}
	ctx = context.WithValue(ctx, memoKey{}, memo)
	for pass := 1; ; pass++ {
		err := s.Store.InTx(ctx, fn)
		var need *needOutside
		if !errors.As(err, &need) {
			return err
		}
		if pass == maxOutsideReadPasses {
			return core.E(core.CodeInternal, "a unit of work kept asking for outside reads: %v", err)
		}
		value, readErr := need.read(ctx)
		memo.mu.Lock()
		memo.answers[need.key] = outsideAnswer{value: value, err: readErr}
		memo.mu.Unlock()
	}
}
