package faucet

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
)

// RegisterWorkers adds the drip worker.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &DripWorker{Service: s})
}

// PeriodicJobs: the faucet schedules nothing on an interval.
func (s *Service) PeriodicJobs() []*river.PeriodicJob { return nil }

// jobTimeout bounds one run of a drip job; waiting for a receipt snoozes instead.
const jobTimeout = time.Minute

// DripWorker sends and confirms one faucet drip (faucet.drip).
type DripWorker struct {
	river.WorkerDefaults[DripArgs]
	Service *Service
}

// Work runs one drip step.
func (w *DripWorker) Work(ctx context.Context, job *river.Job[DripArgs]) error {
	snooze, err := w.Service.RunDrip(ctx, job.Args.DripID)
	return kernel.StepOrGiveUp(ctx, job.Attempt, job.MaxAttempts, snooze, err, func(ctx context.Context, cause error) error {
		return w.Service.GiveUpDrip(ctx, job.Args.DripID, cause)
	})
}

// NextRetry retries soon: 2 s, 4 s, 8 s, … capped at a minute, so a chain that is briefly
// unreachable is retried soon and the bounded attempts span minutes.
func (w *DripWorker) NextRetry(job *river.Job[DripArgs]) time.Time {
	return kernel.RetryAt(job.Attempt, time.Minute)
}

// Timeout bounds one run.
func (w *DripWorker) Timeout(*river.Job[DripArgs]) time.Duration { return jobTimeout }
