package harness

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/corridorhq/corridor/ports"
)

// RetryOnce is a store (for wiring.Config.WrapStore) whose first unit of work that does the
// watched thing fails after its closure ran, with the serialization failure (SQLSTATE 40001) a
// commit-time conflict gives; the real store then runs the closure again. Tests of retry safety
// use it to show a retried unit of work starts from scratch.
type RetryOnce struct {
	ports.Store
	// Watch wraps the unit's Tx in a spy that sets *hit when the closure does the watched thing.
	Watch func(tx ports.Tx, hit *bool) ports.Tx
	// Between, when set, runs after the first run and before the retry (another request
	// committing in between).
	Between func()
	// Injected counts the failures injected (at most one), so a test can prove it injected one.
	Injected *atomic.Int64
}

// InTx implements ports.Store.
func (s RetryOnce) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	return s.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		hit := false
		if err := fn(ctx, s.Watch(tx, &hit)); err != nil {
			return err
		}
		if hit && s.Injected.CompareAndSwap(0, 1) {
			if s.Between != nil {
				s.Between()
			}
			return &pgconn.PgError{Code: "40001", Message: "injected serialization failure"}
		}
		return nil
	})
}
