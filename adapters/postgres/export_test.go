package postgres

import (
	"context"
	"database/sql"
	"sync/atomic"
	"testing"

	"github.com/corridorhq/corridor/core"
)

// WithBeforeCommit sets a hook that runs after a batch's flush and before its COMMIT.
func WithBeforeCommit(opts PipelineOptions, hook func()) PipelineOptions {
	opts.beforeCommit = hook
	return opts
}

// RemembersAccount reports whether s answers OpenAccounts of the reference from memory.
func RemembersAccount(s *Store, env, asset, reference string) bool {
	_, ok := s.refs.get(accountKey{core.Environment(env), asset, reference})
	return ok
}

// ForgetAccounts drops accounts from the process's account cache, so that the next read of
// them goes to the database.
func ForgetAccounts(ids ...string) {
	cachedAccounts.mu.Lock()
	defer cachedAccounts.mu.Unlock()
	for _, id := range ids {
		delete(cachedAccounts.m, id)
	}
}

// SwapToPerHomeKeys gives table the per-home unique keys Distribute gives it on Citus.
func SwapToPerHomeKeys(ctx context.Context, db *sql.DB, table string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return swapToPerHomeKeys(ctx, conn, table)
}

// ExchangeStore is a store over one connection of a new migrated database, with the count of
// the exchanges (writes) it sent PostgreSQL.
func ExchangeStore(t *testing.T) (*Store, *atomic.Int64) { return exchangeStore(t) }
