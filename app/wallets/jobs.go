package wallets

import (
	"context"
	"github.com/corridorhq/corridor/core"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
)

// RegisterWorkers adds the wallet deployment, faucet and ledger mirror workers.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &DeployWalletWorker{Service: s})
	river.AddWorker(workers, &DripWorker{Service: s})
	kernel.AddWorker(workers, chainIndexTimeout, func(ctx context.Context, a ChainIndexArgs) error {
		_, err := s.IndexChain(ctx, core.Environment(a.Environment))
		return err
	})
}

// PeriodicJobs are the ledger mirror's indexer runs (see chainPeriodicJobs).
func (s *Service) PeriodicJobs() []*river.PeriodicJob { return s.chainPeriodicJobs() }

// jobTimeout bounds one run of a wallet or faucet job; waiting for a receipt snoozes instead.
const jobTimeout = time.Minute

// retryBackoff is the delay before retrying a failed run: 2 s, 4 s, 8 s, … capped at a minute,
// so a chain that is briefly unreachable is retried soon and the bounded attempts span minutes.
func retryBackoff(attempt int) time.Time {
	return kernel.RetryAt(attempt, time.Minute)
}

// stepResult turns a step's outcome into River's: a snooze to look again (not counted as an
// attempt), nil when done, or the error for a bounded retry. On the last attempt giveUp records
// FAILED so the object never stays pending forever.
func stepResult(ctx context.Context, attempt, maxAttempts int, snooze time.Duration, err error, giveUp func(context.Context, error) error) error {
	if err != nil && attempt >= maxAttempts {
		return giveUp(ctx, err)
	}
	return kernel.StepResult(snooze, err)
}

// DeployWalletWorker deploys a wallet's Safe (wallet.deploy).
type DeployWalletWorker struct {
	river.WorkerDefaults[DeployWalletArgs]
	Service *Service
}

// Work runs one deployment step.
func (w *DeployWalletWorker) Work(ctx context.Context, job *river.Job[DeployWalletArgs]) error {
	snooze, err := w.Service.DeployWallet(ctx, job.Args.WalletID)
	return stepResult(ctx, job.Attempt, job.MaxAttempts, snooze, err, func(ctx context.Context, cause error) error {
		return w.Service.GiveUpDeploy(ctx, job.Args.WalletID, cause)
	})
}

// NextRetry retries soon (see retryBackoff).
func (w *DeployWalletWorker) NextRetry(job *river.Job[DeployWalletArgs]) time.Time {
	return retryBackoff(job.Attempt)
}

// Timeout bounds one run.
func (w *DeployWalletWorker) Timeout(*river.Job[DeployWalletArgs]) time.Duration { return jobTimeout }

// DripWorker sends and confirms one faucet drip (faucet.drip).
type DripWorker struct {
	river.WorkerDefaults[DripArgs]
	Service *Service
}

// Work runs one drip step.
func (w *DripWorker) Work(ctx context.Context, job *river.Job[DripArgs]) error {
	snooze, err := w.Service.RunDrip(ctx, job.Args.DripID)
	return stepResult(ctx, job.Attempt, job.MaxAttempts, snooze, err, func(ctx context.Context, cause error) error {
		return w.Service.GiveUpDrip(ctx, job.Args.DripID, cause)
	})
}

// NextRetry retries soon (see retryBackoff).
func (w *DripWorker) NextRetry(job *river.Job[DripArgs]) time.Time { return retryBackoff(job.Attempt) }

// Timeout bounds one run.
func (w *DripWorker) Timeout(*river.Job[DripArgs]) time.Duration { return jobTimeout }
