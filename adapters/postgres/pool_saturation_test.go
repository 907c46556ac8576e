package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/testdb"
)

// A unit of work whose deadline passes while every connection of the pool is in use answers
// SERVICE_UNAVAILABLE saying the pool had no free connection, not that the database did not
// answer (an on-call tells a saturated pool from a slow database by it), and is transient
// (Retry-After), with the commit pipeline and without it.
func TestInTx_PoolSaturatedSaysSo(t *testing.T) {
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := postgres.Migrate(url); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(ctx, url, postgres.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	held, err := db.DB.Conn(ctx) // the pool's one connection, held for the test
	if err != nil {
		t.Fatal(err)
	}
	store := postgres.NewStore(db)
	piped := store.WithPipeline(postgres.PipelineOptions{Lanes: 1})
	t.Cleanup(piped.Close)
	for name, s := range map[string]*postgres.Store{"direct": store, "pipelined": piped} {
		uctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		err := s.InTx(uctx, func(ctx context.Context, tx ports.Tx) error {
			_, err := tx.Tenants().FindTenant(ctx, "ten_none")
			return err
		})
		cancel()
		var de *core.Error
		if !errors.As(err, &de) || de.Code != core.CodeServiceUnavailable {
			t.Fatalf("%s: got %v, want SERVICE_UNAVAILABLE", name, err)
		}
		if !strings.Contains(de.Message, "no database connection became free in time") || de.RetryAfter != core.RetryDatabase {
			t.Errorf("%s: got %q (retry after %s), want the pool's saturation, retry after %s", name, de.Message, de.RetryAfter, core.RetryDatabase)
		}
	}
	if err := held.Close(); err != nil {
		t.Fatal(err)
	}
	// With the connection back in the pool, the same unit runs.
	uctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err = store.InTx(uctx, func(ctx context.Context, tx ports.Tx) error {
		_, err := tx.Tenants().FindTenant(ctx, "ten_none")
		return err
	})
	if err != nil && !core.HasCode(err, core.CodeTenantNotFound) {
		t.Errorf("a free pool: got %v", err)
	}
}
