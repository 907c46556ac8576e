package wallets

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
)

// RegisterWorkers adds the wallet deployment worker.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &DeployWalletWorker{Service: s})
}

// PeriodicJobs: wallets schedule nothing on an interval (the ledger mirror's indexer runs are
// app/mirror's).
func (s *Service) PeriodicJobs() []*river.PeriodicJob { return nil }

// jobTimeout bounds one run of a deployment job; waiting for a receipt snoozes instead.
const jobTimeout = time.Minute

// DeployWalletWorker deploys a wallet's Safe (wallet.deploy).
type DeployWalletWorker struct {
	river.WorkerDefaults[DeployWalletArgs]
	Service *Service
}

// Work runs one deployment step.
func (w *DeployWalletWorker) Work(ctx context.Context, job *river.Job[DeployWalletArgs]) error {
	snooze, err := w.Service.DeployWallet(ctx, job.Args.WalletID)
	return kernel.StepOrGiveUp(ctx, job.Attempt, job.MaxAttempts, snooze, err, func(ctx context.Context, cause error) error {
		return w.Service.GiveUpDeploy(ctx, job.Args.WalletID, cause)
	})
}

// NextRetry retries soon: 2 s, 4 s, 8 s, … capped at a minute, so a chain that is briefly
// unreachable is retried soon and the bounded attempts span minutes.
func (w *DeployWalletWorker) NextRetry(job *river.Job[DeployWalletArgs]) time.Time {
	return kernel.RetryAt(job.Attempt, time.Minute)
}

// Timeout bounds one run.
func (w *DeployWalletWorker) Timeout(*river.Job[DeployWalletArgs]) time.Duration { return jobTimeout }
