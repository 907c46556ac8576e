package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/corridorhq/corridor/adapters/jobs"
	"github.com/corridorhq/corridor/ports"
)

type blockArgs struct{}

func (blockArgs) Kind() string { return "test.block" }

// blockWorker holds its job until release closes, telling started when it begins.
type blockWorker struct {
	river.WorkerDefaults[blockArgs]
	started chan<- struct{}
	release <-chan struct{}
}

func (w blockWorker) Work(ctx context.Context, _ *river.Job[blockArgs]) error {
	w.started <- struct{}{}
	select {
	case <-w.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type textArgs struct{}

func (textArgs) Kind() string { return "test.text" }

type textWorker struct{ river.WorkerDefaults[textArgs] }

func (textWorker) Work(context.Context, *river.Job[textArgs]) error { return nil }

// TestRunner_TextsQueueIsNotBehindTheDefaultQueue: with every worker of the default queue busy
// and more work waiting there, a job in ports.QueueTexts still runs, on the texts' own
// workers; the default queue's waiting job stays available until its worker is free.
func TestRunner_TextsQueueIsNotBehindTheDefaultQueue(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard only
	defer cancel()
	pool, inserter := jobsDB(ctx, t)
	started, release := make(chan struct{}, 2), make(chan struct{})
	defer close(release)
	workers := river.NewWorkers()
	river.AddWorker(workers, blockWorker{started: started, release: release})
	river.AddWorker(workers, textWorker{})
	startRunner(ctx, t, jobs.Config{DatabaseURL: pool.Config().ConnString(), Workers: workers, MaxWorkers: 1,
		FetchPollInterval: 100 * time.Millisecond})

	busy, err := inserter.Insert(ctx, blockArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the default queue's job never started")
	}
	waiting, err := inserter.Insert(ctx, blockArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, err := inserter.Insert(ctx, textArgs{}, &river.InsertOpts{Queue: ports.QueueTexts})
	if err != nil {
		t.Fatal(err)
	}
	waitJobState(ctx, t, inserter, text.Job.ID, rivertype.JobStateCompleted)
	if got := jobState(ctx, t, inserter, busy.Job.ID); got != rivertype.JobStateRunning {
		t.Fatalf("the default queue's first job is %s, want still running", got)
	}
	if got := jobState(ctx, t, inserter, waiting.Job.ID); got != rivertype.JobStateAvailable {
		t.Fatalf("the default queue's second job is %s, want waiting for the busy worker", got)
	}
}
