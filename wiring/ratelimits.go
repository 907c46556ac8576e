package wiring

import (
	"context"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/app/kernel"
)

// sharedLimits is the database's shared limiter when the replicas share their limits
// (RATE_LIMIT_STORE=postgres), else nil: each process counts on its own.
func sharedLimits(cfg Config, db *bun.DB) http.SharedLimits {
	if !cfg.SharedRateLimits {
		return nil
	}
	return postgres.NewSharedLimits(db)
}

// SweepRateLimitsArgs is the periodic job that deletes shared limit rows that no longer limit
// anyone (a full bucket, an emptied window), so the tables hold only recent callers.
type SweepRateLimitsArgs struct{}

// Kind names the job.
func (SweepRateLimitsArgs) Kind() string { return "ratelimits.sweep" }

// SweepRateLimitsWorker runs one sweep.
type SweepRateLimitsWorker struct {
	river.WorkerDefaults[SweepRateLimitsArgs]
	Limits *postgres.SharedLimits
}

// Work deletes the rows; a sweep that races a request only removes what the request would
// have found full or empty anyway.
func (w *SweepRateLimitsWorker) Work(ctx context.Context, _ *river.Job[SweepRateLimitsArgs]) error {
	_, err := w.Limits.Sweep(ctx)
	return err
}

// rateLimitSweep is the sweep as a capability with background work. Every replica registers
// its worker; River's leader alone schedules it.
type rateLimitSweep struct{ limits *postgres.SharedLimits }

var _ kernel.Jobs = rateLimitSweep{}

// RegisterWorkers adds the sweep worker.
func (s rateLimitSweep) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &SweepRateLimitsWorker{Limits: s.limits})
}

// PeriodicJobs sweeps every ten minutes and when the service starts.
func (s rateLimitSweep) PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(10*time.Minute),
		func() (river.JobArgs, *river.InsertOpts) { return SweepRateLimitsArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})}
}
