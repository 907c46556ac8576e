package kernel

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// PurgeIdempotencyArgs is the periodic job that deletes expired idempotency records.
type PurgeIdempotencyArgs struct{}

// Kind names the job.
func (PurgeIdempotencyArgs) Kind() string { return "idempotency.purge" }

// PurgeIdempotencyWorker deletes expired records in bounded batches until none are left or
// the job's time is up.
type PurgeIdempotencyWorker struct {
	river.WorkerDefaults[PurgeIdempotencyArgs]
	Idempotency *Idempotency
}

// maxPurgeBatches bounds one run: 100 batches of 1000 records.
const maxPurgeBatches = 100

// Work runs one purge.
func (w *PurgeIdempotencyWorker) Work(ctx context.Context, _ *river.Job[PurgeIdempotencyArgs]) error {
	for i := 0; i < maxPurgeBatches; i++ {
		n, err := w.Idempotency.PurgeIdempotency(ctx)
		if err != nil || n == 0 {
			return err
		}
	}
	return nil
}

// Timeout bounds one run.
func (w *PurgeIdempotencyWorker) Timeout(*river.Job[PurgeIdempotencyArgs]) time.Duration {
	return time.Minute
}

var _ Jobs = (*Idempotency)(nil)

// RegisterWorkers adds the purge worker.
func (s *Idempotency) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &PurgeIdempotencyWorker{Idempotency: s})
}

// PeriodicJobs schedules the purge every five minutes, and once at start.
func (s *Idempotency) PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(5*time.Minute),
			func() (river.JobArgs, *river.InsertOpts) { return PurgeIdempotencyArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
}
