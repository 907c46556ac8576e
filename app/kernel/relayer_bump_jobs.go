package kernel

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"
)

// RelayerBumpInterval paces the relayer's fee-bump pass.
const RelayerBumpInterval = 30 * time.Second

// RelayerBumpArgs is the periodic job that replaces relayer transactions stuck in the pool.
type RelayerBumpArgs struct{}

// Kind names the job.
func (RelayerBumpArgs) Kind() string { return "relayer.fee_bump" }

// RelayerBump runs every chain's fee-bump pass (wiring passes one function per relayer: the
// chain adapter's BumpStuck with RELAYER_BUMP_AFTER and RELAYER_MAX_FEE_GWEI).
type RelayerBump struct {
	Passes []func(ctx context.Context) error
}

// RelayerBumpWorker runs the passes; one failing chain does not keep the others from theirs.
type RelayerBumpWorker struct {
	river.WorkerDefaults[RelayerBumpArgs]
	Bump *RelayerBump
}

// Work runs one pass per chain.
func (w *RelayerBumpWorker) Work(ctx context.Context, _ *river.Job[RelayerBumpArgs]) error {
	var errs []error
	for _, pass := range w.Bump.Passes {
		errs = append(errs, pass(ctx))
	}
	return errors.Join(errs...)
}

// Timeout bounds one run.
func (w *RelayerBumpWorker) Timeout(*river.Job[RelayerBumpArgs]) time.Duration { return time.Minute }

var _ Jobs = (*RelayerBump)(nil)

// RegisterWorkers adds the worker.
func (b *RelayerBump) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &RelayerBumpWorker{Bump: b})
}

// PeriodicJobs schedules the pass every RelayerBumpInterval (none without a relayer).
func (b *RelayerBump) PeriodicJobs() []*river.PeriodicJob {
	if len(b.Passes) == 0 {
		return nil
	}
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(RelayerBumpInterval),
			func() (river.JobArgs, *river.InsertOpts) { return RelayerBumpArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
}
