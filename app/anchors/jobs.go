package anchors

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
)

// LedgerAnchorArgs is the periodic job that anchors the ledger's hash-chain heads on chain.
type LedgerAnchorArgs struct{}

// Kind names the job.
func (LedgerAnchorArgs) Kind() string { return "ledger.anchor" }

var _ kernel.Jobs = (*Service)(nil)

// ledgerAnchorWorker runs one pass.
type ledgerAnchorWorker struct {
	river.WorkerDefaults[LedgerAnchorArgs]
	pass *Service
}

// Work anchors the current heads (or finishes the anchor a previous pass left open).
func (w *ledgerAnchorWorker) Work(ctx context.Context, _ *river.Job[LedgerAnchorArgs]) error {
	_, err := w.pass.Pass(ctx)
	return err
}

// Timeout bounds one run: the mining wait and the reads around it.
func (w *ledgerAnchorWorker) Timeout(*river.Job[LedgerAnchorArgs]) time.Duration {
	return MineWait + time.Minute
}

// RegisterWorkers adds the worker.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &ledgerAnchorWorker{pass: s})
}

// PeriodicJobs schedules the pass every interval, and once at start so an anchor left open by
// a stopped process is finished; none when the interval is negative (anchoring off).
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	if s.interval < 0 {
		return nil
	}
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(s.interval),
		func() (river.JobArgs, *river.InsertOpts) { return LedgerAnchorArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})}
}
