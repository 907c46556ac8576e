package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/corridorhq/corridor/adapters/jobs"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/test/testdb"
)

// The database setup the runner tests share: a migrated database of their own, a pool and an
// insert-only River client on it, runners stopped at the test's end, and polls of a job's state.

func TestMain(m *testing.M) { testdb.Main(m, nil) }

// jobsDB is a migrated database, a pool on it and an insert-only River client.
func jobsDB(ctx context.Context, t *testing.T) (*pgxpool.Pool, *river.Client[pgx.Tx]) {
	t.Helper()
	url := testdb.NewDatabase(ctx, t)
	if _, err := postgres.Migrate(url); err != nil {
		t.Fatal(err)
	}
	if err := jobs.Migrate(ctx, url); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	inserter, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return pool, inserter
}

// startRunner starts a runner with cfg (its database, workers and polling set by the caller)
// and stops it when the test ends.
func startRunner(ctx context.Context, t *testing.T, cfg jobs.Config) *jobs.Runner {
	t.Helper()
	r, err := jobs.NewRunner(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		_ = r.Stop(stopCtx)
	})
	return r
}

func jobState(ctx context.Context, t *testing.T, inserter *river.Client[pgx.Tx], id int64) rivertype.JobState {
	t.Helper()
	job, err := inserter.JobGet(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return job.State
}

// waitJobState polls until the job reaches want; ctx's deadline is the hang guard.
func waitJobState(ctx context.Context, t *testing.T, inserter *river.Client[pgx.Tx], id int64, want rivertype.JobState) {
	t.Helper()
	for jobState(ctx, t, inserter, id) != want {
		if ctx.Err() != nil {
			t.Fatalf("job %d never reached %s (it is %s)", id, want, jobState(context.Background(), t, inserter, id))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
