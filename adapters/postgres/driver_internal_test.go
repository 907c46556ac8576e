package postgres

import (
	"context"
	"database/sql/driver"
	"testing"
)

// TestLazyConn_EmptySavepointSendsNothing: a nested unit that sent and queued no statement
// releases a savepoint that was never sent; the pair is dropped rather than sent with the next
// statement. A savepoint with a statement queued inside it is kept, and so is its release.
func TestLazyConn_EmptySavepointSendsNothing(t *testing.T) {
	ctx := context.Background()
	c := &lazyConn{lazy: true, pending: []queued{{sql: "begin"}}}
	deferred := []driver.NamedValue{{Ordinal: 1, Value: deferExec{}}}
	exec := func(query string, args []driver.NamedValue) {
		t.Helper()
		if _, err := c.ExecContext(ctx, query, args); err != nil {
			t.Fatal(err)
		}
	}
	exec("SAVEPOINT corridor_sp_1", deferred)
	exec("RELEASE SAVEPOINT corridor_sp_1", deferred)
	if len(c.pending) != 1 || c.pending[0].sql != "begin" {
		t.Fatalf("waiting after an empty savepoint: %+v, want only begin", c.pending)
	}
	exec("SAVEPOINT corridor_sp_1", deferred)
	exec("INSERT INTO t VALUES ($1)", append(deferred, driver.NamedValue{Ordinal: 2, Value: "x"}))
	exec("RELEASE SAVEPOINT corridor_sp_1", deferred)
	if len(c.pending) != 4 || c.pending[3].sql != "RELEASE SAVEPOINT corridor_sp_1" {
		t.Fatalf("waiting after a savepoint with a statement: %+v, want begin, savepoint, insert, release", c.pending)
	}
}
