package claims

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
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

// RegisterWorkers adds the pending-claim workers.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	kernel.AddWorker(workers, claimJobTimeout, func(ctx context.Context, a ClaimChainArgs) error { return s.RunClaimChain(ctx, a.ClaimID, a.Action) })
	kernel.AddWorker(workers, claimJobTimeout, func(ctx context.Context, a ClaimNotifyArgs) error { return s.NotifyClaim(ctx, a.ClaimID) })
	kernel.AddWorker(workers, claimJobTimeout, func(ctx context.Context, a ClaimIndexArgs) error {
		return s.IndexClaimEscrow(ctx, core.Environment(a.Environment))
	})
	kernel.AddWorker(workers, claimJobTimeout, func(ctx context.Context, _ ClaimExpiryArgs) error { return s.ExpireDueClaims(ctx) })
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
