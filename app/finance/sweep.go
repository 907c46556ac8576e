package finance

import (
	"context"
	"strconv"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

var _ kernel.Jobs = (*Service)(nil)

const (
	// SweepInterval is how often the shares of the platform accounts are swept into them.
	// Between sweeps the platform account alone is behind by what its shares hold; every
	// report that shows it sums the shares, so only its balance row waits.
	SweepInterval     = 10 * time.Minute
	sweepPage         = 100
	sweepJobTimeout   = 5 * time.Minute
	sweepJobAttempts  = 3
	sweepMetadataKind = "platform_share_sweep"
)

// sweepKinds are the platform accounts whose shares are swept (ledger.Sweepable).
var sweepKinds = []string{ledger.KindPlatformFees, ledger.KindPlatformSandboxPool, ledger.KindPlatformSandboxYield, ledger.KindWorld,
	ledger.KindBetweenTenants}

// SweepSharesArgs is one sweep of every platform share into its platform account.
type SweepSharesArgs struct{}

// Kind names the job.
func (SweepSharesArgs) Kind() string { return "finance.sweep_platform_shares" }

// RegisterWorkers adds the sweep's worker.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	kernel.AddWorker(workers, sweepJobTimeout, func(ctx context.Context, _ SweepSharesArgs) error {
		_, err := s.SweepShares(ctx)
		return err
	})
}

// PeriodicJobs runs the sweep every SweepInterval and when the service starts (River's leader
// alone schedules it), so a service restarted more often than the interval still sweeps.
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(SweepInterval),
		func() (river.JobArgs, *river.InsertOpts) {
			return SweepSharesArgs{}, &river.InsertOpts{MaxAttempts: sweepJobAttempts, UniqueOpts: river.UniqueOpts{ByPeriod: SweepInterval}}
		}, &river.PeriodicJobOpts{RunOnStart: true})}
}

// SweepShares moves the posted balance of every sweepable per-tenant share of a platform
// account (ledger.Share) into the platform account, one transfer per share, each in its own
// unit of work: a share lives with its tenant, so each transfer touches that tenant's row and
// the platform's, and nothing else. It returns how many shares it swept. The transfer moves
// the balance the listing read and its reference names the share and the sequence of its
// last transfer at that read, so a sweep run again after a crash (or twice at once) replays
// the transfer it already made instead of moving money twice; what the share received since
// is swept by the next run.
func (s *Service) SweepShares(ctx context.Context) (int, error) {
	swept, after := 0, ""
	for {
		var page []ports.ShareBalance
		err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
			var err error
			page, err = tx.LedgerReports().SweepableShares(ctx, sweepKinds, after, sweepPage)
			return err
		})
		if err != nil || len(page) == 0 {
			return swept, err
		}
		for _, share := range page {
			moved, err := s.sweepShare(ctx, share)
			if err != nil {
				return swept, err
			}
			if moved {
				swept++
			}
		}
		after = page[len(page)-1].Account.ID
	}
}

// sweepShare moves one share's posted balance, as listed, into its platform account.
func (s *Service) sweepShare(ctx context.Context, share ports.ShareBalance) (bool, error) {
	now, a, b := s.clock.Now(), share.Account, share.Balance
	if b.Posted == 0 || b.PendingDebits != 0 || b.PendingCredits != 0 {
		return false, nil
	}
	replayed := false
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		spec := a.Spec()
		spec.Reference = a.BaseReference()
		accounts, err := tx.Ledger().OpenAccounts(ctx, now, spec)
		if err != nil {
			return err
		}
		platform := accounts[0]
		var postings []ledger.Posting
		if b.Posted > 0 {
			postings = ledger.Move(a.ID, platform.ID, b.Posted)
		} else {
			postings = ledger.Move(platform.ID, a.ID, -b.Posted)
		}
		_, replayed, err = tx.Ledger().Post(ctx, now, ledger.TransferSpec{
			Reference: "platform_sweep:" + a.ID + ":" + strconv.FormatInt(share.LastSequence, 10),
			Type:      ledger.TypePosted, Environment: a.Environment, Asset: a.Asset, Postings: postings,
			Metadata: map[string]string{"source": sweepMetadataKind, "shareAccountId": a.ID, "platformAccountId": platform.ID},
		}.MustValidate())
		return err
	})
	return err == nil && !replayed, err
}
