package wallets

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
)

// jobTimeout bounds one run of a deployment job; waiting for a receipt snoozes instead.
const jobTimeout = time.Minute

// RegisterWorkers adds the wallet deployment worker (wallet.deploy).
func (s *Service) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &kernel.StepWorker[DeployWalletArgs]{Limit: jobTimeout,
		Step: func(ctx context.Context, a DeployWalletArgs) (time.Duration, error) {
			return s.DeployWallet(ctx, a.TenantID, a.WalletID)
		},
		GiveUp: func(ctx context.Context, a DeployWalletArgs, cause error) error {
			return s.GiveUpDeploy(ctx, a.TenantID, a.WalletID, cause)
		}})
}

// PeriodicJobs: wallets schedule nothing on an interval (the ledger mirror's indexer runs are
// app/mirror's).
func (s *Service) PeriodicJobs() []*river.PeriodicJob { return nil }
