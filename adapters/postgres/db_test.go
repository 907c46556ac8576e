package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/test/testdb"
)

// TestOpen_ServerTimeouts: every pooled connection carries statement_timeout and
// idle_in_transaction_session_timeout, a statement that outlives the first is cancelled by
// the server, and a transaction left idle past the second loses its session.
func TestOpen_ServerTimeouts(t *testing.T) {
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)

	t.Run("defaults", func(t *testing.T) {
		db, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		assertSetting(t, db.QueryRowContext(ctx, "SHOW statement_timeout").Scan, "30s")
		assertSetting(t, db.QueryRowContext(ctx, "SHOW idle_in_transaction_session_timeout").Scan, "1min")
	})

	db, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: 3,
		StatementTimeout: 300 * time.Millisecond, IdleInTransactionTimeout: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })

	t.Run("every connection of the pool", func(t *testing.T) {
		// Hold three connections at once so the pool must open three.
		for range 3 {
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			assertSetting(t, conn.QueryRowContext(ctx, "SHOW statement_timeout").Scan, "300ms")
			assertSetting(t, conn.QueryRowContext(ctx, "SHOW idle_in_transaction_session_timeout").Scan, "400ms")
		}
	})

	t.Run("a statement over the limit is cancelled", func(t *testing.T) {
		start := time.Now()
		_, err := db.ExecContext(ctx, "SELECT pg_sleep(5)")
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "57014" {
			t.Fatalf("err = %v, want SQLSTATE 57014 (query_canceled)", err)
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Fatalf("cancelled after %s", took)
		}
	})

	t.Run("an idle transaction loses its session", func(t *testing.T) {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback() }()
		if _, err := tx.ExecContext(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1200 * time.Millisecond)
		if _, err := tx.ExecContext(ctx, "SELECT 1"); err == nil {
			t.Fatal("a transaction idle past idle_in_transaction_session_timeout still answered")
		}
		// The pool replaces the lost connection.
		var one int
		if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("pool after the lost session: %v", err)
		}
	})

	t.Run("negative turns a limit off", func(t *testing.T) {
		off, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: 1, StatementTimeout: -1, IdleInTransactionTimeout: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer off.Close()
		assertSetting(t, off.QueryRowContext(ctx, "SHOW statement_timeout").Scan, "0")
		assertSetting(t, off.QueryRowContext(ctx, "SHOW idle_in_transaction_session_timeout").Scan, "0")
	})
}

func assertSetting(t *testing.T, scan func(...any) error, want string) {
	t.Helper()
	var got string
	if err := scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("setting = %q, want %q", got, want)
	}
}
