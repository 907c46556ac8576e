package api

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/ports"
)

// TestJobs_EnqueueCommitsWithTheTransaction: a job enqueued in a unit of work exists only if
// the unit of work commits.
func TestJobs_EnqueueCommitsWithTheTransaction(t *testing.T) {
	t.Parallel()
	e := env()
	ctx := context.Background()
	db := openDB(t, e.DatabaseURL)
	for _, commit := range []bool{false, true} {
		at := time.Now().Add(time.Duration(100+time.Now().UnixNano()%1000) * time.Hour).UTC().Truncate(time.Second)
		err := e.Service.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			if err := e.Service.Jobs.Enqueue(ctx, kernel.PurgeIdempotencyArgs{}, ports.JobOptions{ScheduledAt: at}); err != nil {
				return err
			}
			if !commit {
				return errors.New("business step failed")
			}
			return nil
		})
		if commit != (err == nil) {
			t.Fatalf("InTx: %v", err)
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM river_job WHERE kind = $1 AND scheduled_at = $2`, "idempotency.purge", at).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 1, false: 0}[commit]; n != want {
			t.Fatalf("commit=%v: %d jobs, want %d", commit, n, want)
		}
	}
	if err := e.Service.Jobs.Enqueue(ctx, kernel.PurgeIdempotencyArgs{}, ports.JobOptions{}); err == nil {
		t.Fatal("Enqueue outside a unit of work was accepted")
	}
}

// TestJobs_PurgeRemovesExpiredIdempotencyRecords runs the purge job through River's workers.
func TestJobs_PurgeRemovesExpiredIdempotencyRecords(t *testing.T) {
	t.Parallel()
	e := env()
	ctx := context.Background()
	db := openDB(t, e.DatabaseURL)
	scope := "tenant:purge-test-" + time.Now().Format("150405.000000000")
	_, err := db.Exec(`INSERT INTO idempotency_keys (tenant_id, scope, environment, key, fingerprint, status_code, body, content_type, created_at, expires_at)
		VALUES ($2, $1, 'TEST', 'old', 'f', 201, '\x7b7d', 'application/json', now() - interval '2 days', now() - interval '1 day'),
		       ($2, $1, 'TEST', 'live', 'f', 201, '\x7b7d', 'application/json', now(), now() + interval '1 day')`, scope, strings.TrimPrefix(scope, "tenant:"))
	if err != nil {
		t.Fatal(err)
	}
	err = e.Service.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		return e.Service.Jobs.Enqueue(ctx, kernel.PurgeIdempotencyArgs{}, ports.JobOptions{})
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var expired, live int
		if err := db.QueryRow(`SELECT count(*) FILTER (WHERE key = 'old'), count(*) FILTER (WHERE key = 'live') FROM idempotency_keys WHERE scope = $1`, scope).Scan(&expired, &live); err != nil {
			t.Fatal(err)
		}
		if expired == 0 {
			if live != 1 {
				t.Fatal("the purge deleted a live record")
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the purge job did not run")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func openDB(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
