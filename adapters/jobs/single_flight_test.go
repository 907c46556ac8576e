package jobs_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/corridorhq/corridor/adapters/jobs"
)

type passArgs struct{}

func (passArgs) Kind() string { return "test.pass" }

// passWorker counts its runs and holds each one until released.
type passWorker struct {
	river.WorkerDefaults[passArgs]
	runs    *atomic.Int64
	started chan struct{}
	release chan struct{}
}

func (w *passWorker) Work(ctx context.Context, _ *river.Job[passArgs]) error {
	w.runs.Add(1)
	w.started <- struct{}{}
	select {
	case <-w.release:
	case <-ctx.Done():
	}
	return nil
}

// TestSingleFlight_PeriodicPassRunsOnceAcrossRunners: two runners on one database (two
// replicas). While one runs a periodic pass, a second run of the same pass, enqueued as River's
// periodic enqueuer does, ends as done without running; once the first finishes the pass runs
// again. A job that is not periodic is never held back.
func TestSingleFlight_PeriodicPassRunsOnceAcrossRunners(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard only
	defer cancel()
	pool, inserter := jobsDB(ctx, t)
	var runs atomic.Int64
	worker := &passWorker{runs: &runs, started: make(chan struct{}, 4), release: make(chan struct{})}
	for range 2 {
		workers := river.NewWorkers()
		river.AddWorker(workers, worker)
		startRunner(ctx, t, jobs.Config{DatabaseURL: pool.Config().ConnString(), Workers: workers, FetchPollInterval: 200 * time.Millisecond})
	}
	insert := func(periodic bool) int64 {
		opts := &river.InsertOpts{}
		if periodic {
			opts.Metadata = []byte(`{"periodic": true}`)
		}
		res, err := inserter.Insert(ctx, passArgs{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res.Job.ID
	}
	waitDone := func(id int64) {
		t.Helper()
		waitJobState(ctx, t, inserter, id, rivertype.JobStateCompleted)
	}
	waitStarted := func() {
		t.Helper()
		select {
		case <-worker.started:
		case <-ctx.Done():
			t.Fatal("the pass never started")
		}
	}

	first := insert(true)
	waitStarted()
	second := insert(true)
	waitDone(second)
	if got := runs.Load(); got != 1 {
		t.Fatalf("the pass ran %d times while one run held it, want 1", got)
	}
	// A job that is not a periodic pass runs beside it.
	other := insert(false)
	waitStarted()
	worker.release <- struct{}{}
	worker.release <- struct{}{}
	waitDone(first)
	waitDone(other)
	// The lease is released: the pass runs again.
	third := insert(true)
	waitStarted()
	worker.release <- struct{}{}
	waitDone(third)
	if got := runs.Load(); got != 3 {
		t.Fatalf("runs %d, want 3 (first, the plain job, third)", got)
	}
	var leases int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pass_leases`).Scan(&leases); err != nil && err != pgx.ErrNoRows {
		t.Fatal(err)
	}
	if leases != 0 {
		t.Fatalf("%d leases left after the passes ended", leases)
	}
}
