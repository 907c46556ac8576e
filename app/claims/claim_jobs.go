package claims

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"corridor/app/kernel"
	"corridor/core"
)

var _ kernel.Jobs = (*Service)(nil)

// Timing of pending-claim jobs.
const (
	claimJobMaxAttempts = 25
	claimJobTimeout     = time.Minute
	// ClaimIndexInterval is how often the escrow indexer runs per environment with an escrow
	// (every chain send also enqueues a run at once).
	ClaimIndexInterval = 2 * time.Second
	// ClaimExpiryInterval is how often the expiry pass looks for due claims.
	ClaimExpiryInterval = time.Minute
	// maxClaimIndexRanges bounds one indexer run; the next run carries on.
	maxClaimIndexRanges = 20
	// maxDueClaims bounds one expiry pass.
	maxDueClaims = 100
)

// Chain actions a ClaimChainArgs job performs on the escrow contract.
const (
	claimActionFund    = "fund"
	claimActionLock    = "lock"
	claimActionRelease = "release"
	claimActionRefund  = "refund"
	claimActionCancel  = "cancel"
)

// ClaimChainArgs sends one escrow transaction for a claim, after commit. The payload carries
// ids only, never the phone number.
type ClaimChainArgs struct {
	ClaimID string `json:"claimId"`
	Action  string `json:"action"`
}

// Kind names the job.
func (ClaimChainArgs) Kind() string { return "claim.chain" }

// ClaimNotifyArgs is the durable notification of a newly opened claim: it texts the claim link.
// Only the claim id travels; the SMS adapter gets the number from the encrypted claim record.
type ClaimNotifyArgs struct {
	ClaimID string `json:"claimId"`
}

// Kind names the job.
func (ClaimNotifyArgs) Kind() string { return "claim.notify" }

// ClaimIndexArgs is one run of the escrow indexer for an environment.
type ClaimIndexArgs struct {
	Environment string `json:"environment"`
}

// Kind names the job.
func (ClaimIndexArgs) Kind() string { return "claim.index" }

// ClaimExpiryArgs is one expiry pass over due claims.
type ClaimExpiryArgs struct{}

// Kind names the job.
func (ClaimExpiryArgs) Kind() string { return "claim.expiry" }

// ClaimChainWorker works claim.chain jobs.
type ClaimChainWorker struct {
	river.WorkerDefaults[ClaimChainArgs]
	Service *Service
}

// Work sends the transaction.
func (w *ClaimChainWorker) Work(ctx context.Context, job *river.Job[ClaimChainArgs]) error {
	return w.Service.RunClaimChain(ctx, job.Args.ClaimID, job.Args.Action)
}

// Timeout bounds one run.
func (w *ClaimChainWorker) Timeout(*river.Job[ClaimChainArgs]) time.Duration { return claimJobTimeout }

// ClaimNotifyWorker works claim.notify jobs.
type ClaimNotifyWorker struct {
	river.WorkerDefaults[ClaimNotifyArgs]
	Service *Service
}

// Work texts the link.
func (w *ClaimNotifyWorker) Work(ctx context.Context, job *river.Job[ClaimNotifyArgs]) error {
	return w.Service.NotifyClaim(ctx, job.Args.ClaimID)
}

// Timeout bounds one run.
func (w *ClaimNotifyWorker) Timeout(*river.Job[ClaimNotifyArgs]) time.Duration {
	return claimJobTimeout
}

// ClaimIndexWorker works claim.index jobs.
type ClaimIndexWorker struct {
	river.WorkerDefaults[ClaimIndexArgs]
	Service *Service
}

// Work runs one indexer pass.
func (w *ClaimIndexWorker) Work(ctx context.Context, job *river.Job[ClaimIndexArgs]) error {
	return w.Service.IndexClaimEscrow(ctx, core.Environment(job.Args.Environment))
}

// Timeout bounds one run.
func (w *ClaimIndexWorker) Timeout(*river.Job[ClaimIndexArgs]) time.Duration { return claimJobTimeout }

// ClaimExpiryWorker works claim.expiry jobs.
type ClaimExpiryWorker struct {
	river.WorkerDefaults[ClaimExpiryArgs]
	Service *Service
}

// Work runs one expiry pass.
func (w *ClaimExpiryWorker) Work(ctx context.Context, _ *river.Job[ClaimExpiryArgs]) error {
	return w.Service.ExpireDueClaims(ctx)
}

// Timeout bounds one run.
func (w *ClaimExpiryWorker) Timeout(*river.Job[ClaimExpiryArgs]) time.Duration {
	return claimJobTimeout
}

// RegisterWorkers adds the pending-claim workers.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &ClaimChainWorker{Service: s})
	river.AddWorker(workers, &ClaimNotifyWorker{Service: s})
	river.AddWorker(workers, &ClaimIndexWorker{Service: s})
	river.AddWorker(workers, &ClaimExpiryWorker{Service: s})
}

// PeriodicJobs are the escrow indexer per environment with an escrow, and the expiry pass.
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	var jobs []*river.PeriodicJob
	for _, env := range []core.Environment{core.EnvTest, core.EnvLive} {
		if _, err := s.escrow(env); err != nil {
			continue
		}
		args := ClaimIndexArgs{Environment: string(env)}
		jobs = append(jobs, river.NewPeriodicJob(river.PeriodicInterval(ClaimIndexInterval),
			func() (river.JobArgs, *river.InsertOpts) {
				return args, &river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: ClaimIndexInterval}}
			}, &river.PeriodicJobOpts{RunOnStart: true}))
	}
	if len(jobs) > 0 {
		jobs = append(jobs, river.NewPeriodicJob(river.PeriodicInterval(ClaimExpiryInterval),
			func() (river.JobArgs, *river.InsertOpts) {
				return ClaimExpiryArgs{}, &river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: ClaimExpiryInterval}}
			}, &river.PeriodicJobOpts{RunOnStart: true}))
	}
	return jobs
}
