package app

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
	App *App
}

// maxPurgeBatches bounds one run: 100 batches of 1000 records.
const maxPurgeBatches = 100

// Work runs one purge.
func (w *PurgeIdempotencyWorker) Work(ctx context.Context, _ *river.Job[PurgeIdempotencyArgs]) error {
	for i := 0; i < maxPurgeBatches; i++ {
		n, err := w.App.PurgeIdempotency(ctx)
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

// RegisterWorkers adds every worker of the application to River's registry. Each capability
// registers its own in its own file.
func (a *App) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &PurgeIdempotencyWorker{App: a})
	a.registerWalletWorkers(workers)
	a.registerPaymentWorkers(workers)
	a.registerChainWorkers(workers)
	a.registerOfframpWorkers(workers)
	a.registerClaimWorkers(workers)
}

// PeriodicJobs are the jobs River schedules on an interval.
func (a *App) PeriodicJobs() []*river.PeriodicJob {
	jobs := []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(5*time.Minute),
			func() (river.JobArgs, *river.InsertOpts) { return PurgeIdempotencyArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
	jobs = append(jobs, a.offrampPeriodicJobs()...)
	jobs = append(jobs, a.claimPeriodicJobs()...)
	return append(jobs, a.chainPeriodicJobs()...)
}
