package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/testdb"
)

// The driver sends BEGIN, savepoints and the idempotency record with the next statement
// (driver.go). These tests hold the unit of work's meaning fixed under it: what commits, what
// a failing nested unit takes back, and where a held-back statement's failure lands.

func lazyStore(t *testing.T) *postgres.Store {
	t.Helper()
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := postgres.Migrate(url); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return postgres.NewStore(db)
}

var lazyNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func lazyRecord(key string, env core.Environment) ports.IdempotencyRecord {
	return ports.IdempotencyRecord{Scope: "tenant:ten_lazy", Environment: env, Key: key, Fingerprint: "fp",
		StatusCode: 201, Body: []byte(`{}`), ContentType: "application/json", CreatedAt: lazyNow,
		ExpiresAt: lazyNow.Add(time.Hour)}
}

// committed reports which of keys hold a stored record.
func committed(t *testing.T, store *postgres.Store, keys ...string) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	err := store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		for _, k := range keys {
			_, found, err := tx.Idempotency().Find(ctx, "tenant:ten_lazy", core.EnvTest, k, lazyNow)
			if err != nil {
				return err
			}
			got[k] = found
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestLazyTx_NestedUnitsRollBackAlone(t *testing.T) {
	store := lazyStore(t)
	ctx := context.Background()
	failed := errors.New("the unit fails")
	save := func(ctx context.Context, tx ports.Tx, key string) error {
		return tx.Idempotency().Save(ctx, lazyRecord(key, core.EnvTest))
	}
	err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if err := save(ctx, tx, "outer-1"); err != nil {
			return err
		}
		// A sibling that fails after writing takes back its write only.
		if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			if err := save(ctx, tx, "failed-sibling"); err != nil {
				return err
			}
			return failed
		}); !errors.Is(err, failed) {
			t.Fatalf("failing nested unit: %v", err)
		}
		// A sibling that succeeds keeps its write.
		if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			return save(ctx, tx, "kept-sibling")
		}); err != nil {
			return err
		}
		// A unit that fails after its own nested unit succeeded takes back both.
		if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
				return save(ctx, tx, "inner-of-failed")
			}); err != nil {
				return err
			}
			if err := save(ctx, tx, "failed-parent"); err != nil {
				return err
			}
			return failed
		}); !errors.Is(err, failed) {
			t.Fatalf("failing parent unit: %v", err)
		}
		// A nested unit whose statement fails (the environment's CHECK) is rolled back to its
		// savepoint, and the transaction goes on.
		err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			return tx.Idempotency().Save(ctx, lazyRecord("bad-env", "BOGUS"))
		})
		if code, _ := constraintCode(err); code != "23514" {
			t.Fatalf("nested unit with a failing statement: %v", err)
		}
		// A nested unit that fails before sending anything rolls back nothing.
		if err := store.InTx(ctx, func(context.Context, ports.Tx) error { return failed }); !errors.Is(err, failed) {
			t.Fatalf("empty failing nested unit: %v", err)
		}
		return save(ctx, tx, "outer-2")
	})
	if err != nil {
		t.Fatal(err)
	}
	got := committed(t, store, "outer-1", "failed-sibling", "kept-sibling", "inner-of-failed", "failed-parent", "outer-2")
	want := map[string]bool{"outer-1": true, "failed-sibling": false, "kept-sibling": true, "inner-of-failed": false,
		"failed-parent": false, "outer-2": true}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s committed = %v, want %v", k, got[k], w)
		}
	}
}

// A unit that swallows its failed statement's error leaves the transaction failed; its parent
// failing after it rolls back to its own savepoint, and the transaction goes on.
func TestLazyTx_RollbackAfterSwallowedFailure(t *testing.T) {
	store := lazyStore(t)
	ctx := context.Background()
	failed := errors.New("the parent fails")
	err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			if err := tx.Idempotency().Save(ctx, lazyRecord("in-parent", core.EnvTest)); err != nil {
				return err
			}
			_ = store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
				_ = tx.Idempotency().Save(ctx, lazyRecord("bad-env", "BOGUS")) // error swallowed
				return nil
			})
			return failed
		})
		if !errors.Is(err, failed) {
			t.Fatalf("parent unit: %v", err)
		}
		return tx.Idempotency().Save(ctx, lazyRecord("after", core.EnvTest))
	})
	if err != nil {
		t.Fatal(err)
	}
	got := committed(t, store, "in-parent", "after")
	if got["in-parent"] || !got["after"] {
		t.Fatalf("committed %v, want only after", got)
	}
}

// The record is the owning unit's last statement and travels with COMMIT: when it fails, the
// unit fails with its error and nothing of the unit commits, as when Save returned the error.
func TestLazyTx_HeldBackRecordFailsTheUnit(t *testing.T) {
	store := lazyStore(t)
	ctx := context.Background()
	err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			return tx.Idempotency().Save(ctx, lazyRecord("written-before", core.EnvTest))
		}); err != nil {
			return err
		}
		return tx.Idempotency().Save(ctx, lazyRecord("bad-env", "BOGUS"))
	})
	if code, _ := constraintCode(err); code != "23514" {
		t.Fatalf("unit whose record fails: %v, want the CHECK violation", err)
	}
	if got := committed(t, store, "written-before"); got["written-before"] {
		t.Fatal("a unit whose record failed committed its other writes")
	}
	// The connections are clean afterwards: a unit commits again.
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		return tx.Idempotency().Save(ctx, lazyRecord("after", core.EnvTest))
	}); err != nil {
		t.Fatal(err)
	}
	if got := committed(t, store, "after"); !got["after"] {
		t.Fatal("the unit after a failed one did not commit")
	}
}

// A unit of work that sends no statement commits (or fails) without touching the database,
// and one that claims first gets its BEGIN with the claim.
func TestLazyTx_UnitWithoutStatements(t *testing.T) {
	store := lazyStore(t)
	ctx := context.Background()
	failed := errors.New("refused before any statement")
	for range 4 { // more units than pooled connections: each comes back clean
		if err := store.InTx(ctx, func(context.Context, ports.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if err := store.InTx(ctx, func(context.Context, ports.Tx) error { return failed }); !errors.Is(err, failed) {
			t.Fatal(err)
		}
	}
	// A nested unit that fails before sending anything, in a transaction that has sent
	// statements: its savepoint is dropped unsent and the transaction goes on.
	err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if _, _, err := tx.Idempotency().Find(ctx, "tenant:ten_lazy", core.EnvTest, "none", lazyNow); err != nil {
			return err
		}
		if err := store.InTx(ctx, func(context.Context, ports.Tx) error { return failed }); !errors.Is(err, failed) {
			return errors.Join(err, errors.New("the nested unit did not fail with its error"))
		}
		return tx.Idempotency().Save(ctx, lazyRecord("after-empty-nested", core.EnvTest))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := committed(t, store, "after-empty-nested"); !got["after-empty-nested"] {
		t.Fatal("the unit around an empty failing nested unit did not commit")
	}
	err = store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		_, stored, claimed, err := tx.Idempotency().Claim(ctx, "tenant:ten_lazy", core.EnvTest, "claimed", lazyNow)
		if err != nil || stored || !claimed {
			return errors.Join(err, errors.New("the claim did not get the key"))
		}
		return tx.Idempotency().Save(ctx, lazyRecord("claimed", core.EnvTest))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := committed(t, store, "claimed"); !got["claimed"] {
		t.Fatal("the claimed record did not commit")
	}
}

func constraintCode(err error) (string, bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code, true
	}
	return "", false
}
