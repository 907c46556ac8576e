package cards

import (
	"context"
	"errors"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ports"
)

var _ kernel.Jobs = (*Service)(nil)

// SettleArgs is the durable job that settles one captured Safe card authorization on chain
// through the card spend module. It is enqueued in the capture's unit of work.
type SettleArgs struct {
	// TenantID routes the job's statements to the tenant's shard group. A job enqueued before
	// it was carried has none: it does nothing, and the sweep enqueues the settlement again
	// with its tenant once it has been untouched for settlementStaleAfter.
	TenantID        string `json:"tenantId,omitempty"`
	AuthorizationID string `json:"authorizationId"`
}

// Kind names the job.
func (SettleArgs) Kind() string { return "card.settle" }

const (
	settleMaxAttempts = 10
	settleTimeout     = time.Minute
	settleReceiptWait = 2 * time.Second
	settleRetryCap    = 2 * time.Minute
)

// SettlementRef is the module's settlement reference of an authorization: derived from its id,
// so a retried job never settles twice (the module refuses a reference it has seen).
func SettlementRef(authorizationID string) [32]byte {
	return crypto.Keccak256Hash([]byte("corridor:card-settlement:" + authorizationID))
}

// RegisterWorkers adds the settlement worker.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	kernel.AddRetryingWorker(workers, settleTimeout, settleRetryCap, func(ctx context.Context, a SettleArgs) error {
		if a.TenantID == "" {
			return nil
		}
		return kernel.StepResult(s.RunSettlement(ctx, a.TenantID, a.AuthorizationID))
	})
	kernel.AddWorker(workers, 0, func(ctx context.Context, _ SweepSettlementsArgs) error {
		_, err := s.SweepSettlements(ctx)
		return err
	})
	kernel.AddWorker(workers, 0, func(ctx context.Context, _ ExpireApprovalsArgs) error {
		_, err := s.ExpireApprovals(ctx)
		return err
	})
	kernel.AddWorker(workers, issuerStatusTimeout, func(ctx context.Context, a IssuerStatusArgs) error {
		return s.SyncIssuerStatus(ctx, a.TenantID, core.Environment(a.Environment), a.CardID)
	})
}

// PeriodicJobs is the settlement sweep; settlements themselves are enqueued by captures.
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(SettlementSweepInterval),
			func() (river.JobArgs, *river.InsertOpts) {
				return SweepSettlementsArgs{}, &river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: SettlementSweepInterval}}
			}, &river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(ExpiryInterval),
			func() (river.JobArgs, *river.InsertOpts) {
				return ExpireApprovalsArgs{}, &river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: ExpiryInterval}}
			}, &river.PeriodicJobOpts{RunOnStart: true}),
	}
}

// ExpiryInterval is how often the expiry pass releases lapsed approvals.
const ExpiryInterval = 15 * time.Minute

// ExpireApprovalsArgs is the periodic job that releases lapsed approvals.
type ExpireApprovalsArgs struct{}

// Kind names the job.
func (ExpireApprovalsArgs) Kind() string { return "card.expire_approvals" }

// SettlementSweepInterval is how often the sweep runs; a settlement untouched for
// settlementStaleAfter (its job gave up after its attempts, or was lost) is enqueued again.
const (
	SettlementSweepInterval = 5 * time.Minute
	settlementStaleAfter    = 15 * time.Minute
	settlementSweepBatch    = 100
)

// SweepSettlementsArgs is the periodic job that re-enqueues stale settlements.
type SweepSettlementsArgs struct{}

// Kind names the job.
func (SweepSettlementsArgs) Kind() string { return "card.settle_sweep" }

// settlementJobs is the cards capability's settlement work, run by its River workers: sending a
// capture's settlement to the card spend module, waiting for its receipt and the sweep that
// picks up a stale one. It holds only the ports that work uses (not the Service), so the
// request-facing Service stays within the method bound of test/architecture and the jobs
// cannot reach the rest of it.
type settlementJobs struct {
	store  kernel.Units[txView]
	jobs   ports.Jobs
	chains kernel.Chains
	now    func() time.Time
	module func(core.Environment) (ports.CardSpendModule, error)
}

// newSettlementJobs hands the settlement work the ports it uses, and nothing more (a function,
// not a Service method, so it takes no room in the Service's method bound).
func newSettlementJobs(s *Service) settlementJobs {
	return settlementJobs{store: s.store, jobs: s.jobs, chains: s.chains, now: s.now, module: s.module}
}

// SweepSettlements is settlementJobs.SweepSettlements, for the workers and the suites.
func (s *Service) SweepSettlements(ctx context.Context) (int, error) {
	return newSettlementJobs(s).SweepSettlements(ctx)
}

// RunSettlement is settlementJobs.RunSettlement, for the workers and the suites.
func (s *Service) RunSettlement(ctx context.Context, tenantID, authorizationID string) (time.Duration, error) {
	return newSettlementJobs(s).RunSettlement(ctx, tenantID, authorizationID)
}

// SweepSettlements enqueues a settlement job again for every capture whose settlement is still
// PENDING or SUBMITTED and untouched for settlementStaleAfter, so a settlement whose job ran
// out of attempts (a node down for long) is never lost. It returns how many it enqueued.
func (s settlementJobs) SweepSettlements(ctx context.Context) (int, error) {
	var n int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		stale, err := tx.Cards().StaleSettlements(ctx, s.now().Add(-settlementStaleAfter), settlementSweepBatch)
		if err != nil {
			return err
		}
		n = 0
		for _, row := range stale {
			if err := s.jobs.Enqueue(ctx, SettleArgs{TenantID: row.TenantID, AuthorizationID: row.ID}, ports.JobOptions{MaxAttempts: settleMaxAttempts, UniqueFor: settlementStaleAfter}); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// RunSettlement advances one settlement: PENDING sends SettleCardSpend (outside any unit of
// work) and records SUBMITTED with the hash; SUBMITTED waits for the receipt and records
// CONFIRMED, or FAILED with the reason. A refusal by the contract is FAILED at once; a node
// error is recorded on the authorization and retried. Retry-safe: the reference is derived
// from the authorization, and the module sends nothing for a reference already settled.
func (s settlementJobs) RunSettlement(ctx context.Context, tenantID, authorizationID string) (time.Duration, error) {
	var a card.Authorization
	var c card.Card
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		if a, err = tx.Cards().LockAuthorizationByID(ctx, tenantID, authorizationID); err != nil {
			return err
		}
		c, err = tx.Cards().FindCard(ctx, a.TenantID, a.Environment, a.CardID)
		return err
	})
	if err != nil {
		return 0, err
	}
	switch a.SettlementStatus {
	case card.SettlementPending:
		return s.sendSettlement(ctx, c, a)
	case card.SettlementSubmitted:
		return s.confirmSettlement(ctx, a)
	}
	return 0, nil // settled, failed or nothing to settle
}

func (s settlementJobs) sendSettlement(ctx context.Context, c card.Card, a card.Authorization) (time.Duration, error) {
	module, err := s.module(a.Environment)
	if err != nil {
		return 0, s.recordSettlement(ctx, a.TenantID, a.ID, card.SettlementPending, "", err.Error())
	}
	hash, err := module.SettleCardSpend(ctx, common.HexToAddress(c.SafeAddress), big.NewInt(a.CapturedAmount), SettlementRef(a.ID))
	var revert *ports.RevertError
	switch {
	case errors.As(err, &revert):
		return 0, s.recordSettlement(ctx, a.TenantID, a.ID, card.SettlementFailed, "", "refused by the card spend module: "+revert.Error())
	case err != nil:
		if rerr := s.recordSettlement(ctx, a.TenantID, a.ID, card.SettlementPending, "", err.Error()); rerr != nil {
			return 0, rerr
		}
		return 0, err
	case hash == (common.Hash{}):
		// Already settled under this reference by an earlier run whose hash was not recorded.
		return 0, s.recordSettlement(ctx, a.TenantID, a.ID, card.SettlementConfirmed, a.SettlementTxHash, "")
	}
	kernel.CrashPoint(kernel.CrashCardSettlementSent)
	if err := s.recordSettlement(ctx, a.TenantID, a.ID, card.SettlementSubmitted, hash.Hex(), ""); err != nil {
		return 0, err
	}
	return settleReceiptWait, nil
}

func (s settlementJobs) confirmSettlement(ctx context.Context, a card.Authorization) (time.Duration, error) {
	chain, err := s.chains.Chain(a.Environment)
	if err != nil {
		return 0, err
	}
	r, err := chain.Receipt(ctx, common.HexToHash(a.SettlementTxHash))
	if err != nil {
		return 0, err
	}
	switch r.Status {
	case ports.TxSucceeded:
		return 0, s.recordSettlement(ctx, a.TenantID, a.ID, card.SettlementConfirmed, a.SettlementTxHash, "")
	case ports.TxFailed:
		return 0, s.recordSettlement(ctx, a.TenantID, a.ID, card.SettlementFailed, a.SettlementTxHash, "settlement transaction reverted: "+r.FailureReason)
	}
	return settleReceiptWait, nil
}

// recordSettlement writes a settlement step unless the authorization already moved past it.
func (s settlementJobs) recordSettlement(ctx context.Context, tenantID, id string, status card.SettlementStatus, txHash, failure string) error {
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		a, err := tx.Cards().LockAuthorizationByID(ctx, tenantID, id)
		if err != nil {
			return err
		}
		if a.SettlementStatus == card.SettlementConfirmed || a.SettlementStatus == card.SettlementFailed {
			return nil
		}
		changed := a.SettlementStatus != status
		a.SettlementStatus, a.SettlementError, a.UpdatedAt = status, failure, s.now()
		if txHash != "" {
			a.SettlementTxHash = txHash
		}
		if err := tx.Cards().UpdateAuthorization(ctx, a); err != nil || !changed {
			return err
		}
		return recordSettlementEvent(ctx, tx, a)
	})
}
