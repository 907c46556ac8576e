package app

import (
	"context"
	"encoding/hex"
	"errors"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/riverqueue/river"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/claim"
	"corridor/core/offramp"
	"corridor/ledger"
	"corridor/ports"
)

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
	App *App
}

// Work sends the transaction.
func (w *ClaimChainWorker) Work(ctx context.Context, job *river.Job[ClaimChainArgs]) error {
	return w.App.RunClaimChain(ctx, job.Args.ClaimID, job.Args.Action)
}

// Timeout bounds one run.
func (w *ClaimChainWorker) Timeout(*river.Job[ClaimChainArgs]) time.Duration { return claimJobTimeout }

// ClaimNotifyWorker works claim.notify jobs.
type ClaimNotifyWorker struct {
	river.WorkerDefaults[ClaimNotifyArgs]
	App *App
}

// Work texts the link.
func (w *ClaimNotifyWorker) Work(ctx context.Context, job *river.Job[ClaimNotifyArgs]) error {
	return w.App.NotifyClaim(ctx, job.Args.ClaimID)
}

// Timeout bounds one run.
func (w *ClaimNotifyWorker) Timeout(*river.Job[ClaimNotifyArgs]) time.Duration {
	return claimJobTimeout
}

// ClaimIndexWorker works claim.index jobs.
type ClaimIndexWorker struct {
	river.WorkerDefaults[ClaimIndexArgs]
	App *App
}

// Work runs one indexer pass.
func (w *ClaimIndexWorker) Work(ctx context.Context, job *river.Job[ClaimIndexArgs]) error {
	return w.App.IndexClaimEscrow(ctx, core.Environment(job.Args.Environment))
}

// Timeout bounds one run.
func (w *ClaimIndexWorker) Timeout(*river.Job[ClaimIndexArgs]) time.Duration { return claimJobTimeout }

// ClaimExpiryWorker works claim.expiry jobs.
type ClaimExpiryWorker struct {
	river.WorkerDefaults[ClaimExpiryArgs]
	App *App
}

// Work runs one expiry pass.
func (w *ClaimExpiryWorker) Work(ctx context.Context, _ *river.Job[ClaimExpiryArgs]) error {
	return w.App.ExpireDueClaims(ctx)
}

// Timeout bounds one run.
func (w *ClaimExpiryWorker) Timeout(*river.Job[ClaimExpiryArgs]) time.Duration {
	return claimJobTimeout
}

// registerClaimWorkers adds the pending-claim workers.
func (a *App) registerClaimWorkers(workers *river.Workers) {
	river.AddWorker(workers, &ClaimChainWorker{App: a})
	river.AddWorker(workers, &ClaimNotifyWorker{App: a})
	river.AddWorker(workers, &ClaimIndexWorker{App: a})
	river.AddWorker(workers, &ClaimExpiryWorker{App: a})
}

// claimPeriodicJobs are the escrow indexer per environment with an escrow, and the expiry pass.
func (a *App) claimPeriodicJobs() []*river.PeriodicJob {
	var jobs []*river.PeriodicJob
	for _, env := range []core.Environment{core.EnvTest, core.EnvLive} {
		if _, err := a.escrow(env); err != nil {
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

// RunClaimChain sends one escrow transaction for a claim when the claim still needs it, then
// records its hash and enqueues an indexer run. The claim's status changes only when the
// indexer sees the contract's event. Retries are safe: the adapter sends nothing when the
// contract already reflects the effect.
func (a *App) RunClaimChain(ctx context.Context, claimID, action string) error {
	var c claim.Claim
	if err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		c, err = tx.Claims().LockClaim(ctx, claimID)
		return err
	}); err != nil {
		return err
	}
	esc, err := a.escrow(c.Environment)
	if err != nil {
		return err
	}
	id, err := claim.Bytes32(c.OnchainID)
	if err != nil {
		return err
	}
	now := a.clock.Now()
	var hash common.Hash
	switch action {
	case claimActionFund:
		if c.Status != claim.StatusOpen || c.Funded || c.Expired(now) {
			return nil
		}
		meta, err := claim.Bytes32(c.MetadataHash)
		if err != nil {
			return err
		}
		hash, err = esc.FundClaim(ctx, id, c.AmountBig(), c.ExpiresAt, meta)
		if err != nil {
			return err
		}
	case claimActionLock:
		if c.Status != claim.StatusOpen || c.RedeemedAt == nil {
			return nil
		}
		hash, err = esc.LockClaim(ctx, id)
		var revert *ports.RevertError
		if errors.As(err, &revert) {
			// The lock only marks the claim as being paid out; a release works without it.
			a.logger().Warn("claim escrow lock refused", "claimId", c.ID, "reason", revert.Reason)
			return nil
		}
		if err != nil {
			return err
		}
	case claimActionRelease:
		if c.DecisionHash == "" || (c.Status != claim.StatusOpen && c.Status != claim.StatusLocked) {
			return nil
		}
		decision, err := claim.Bytes32(c.DecisionHash)
		if err != nil {
			return err
		}
		if hash, err = esc.ReleaseClaim(ctx, id, esc.SettlementAddress(), decision); err != nil {
			return err
		}
	case claimActionRefund:
		if hash, err = a.refundOnChain(ctx, esc, c, id, now); err != nil {
			return err
		}
	case claimActionCancel:
		if c.Status != claim.StatusExpired || c.Funded {
			return nil
		}
		hash, err = esc.CancelClaim(ctx, id)
		var revert *ports.RevertError
		if errors.As(err, &revert) {
			// Funded meanwhile: the indexer's ClaimFunded takes the refund path instead.
			return a.enqueueClaimIndex(ctx, c.Environment)
		}
		if err != nil {
			return err
		}
	default:
		return errors.New("app: unknown claim chain action " + action)
	}
	return a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if hash != (common.Hash{}) {
			c, err := tx.Claims().LockClaim(ctx, claimID)
			if err != nil {
				return err
			}
			recordClaimTx(&c, action, hash.Hex())
			c.UpdatedAt = a.clock.Now()
			if err := tx.Claims().UpdateClaim(ctx, c); err != nil {
				return err
			}
		}
		return a.jobs.Enqueue(ctx, ClaimIndexArgs{Environment: string(c.Environment)}, ports.JobOptions{MaxAttempts: 3})
	})
}

// refundOnChain refunds an expired claim: an expiry the service decided before the contract's
// (the sandbox helper) first brings the on-chain expiry forward. A refund the contract still
// refuses (the grace period of a locked claim) fails the job, which River retries later.
func (a *App) refundOnChain(ctx context.Context, esc ports.ClaimEscrow, c claim.Claim, id [32]byte, now time.Time) (common.Hash, error) {
	if c.Status.Absorbing() {
		return common.Hash{}, nil
	}
	on, err := esc.EscrowClaim(ctx, id)
	if err != nil {
		return common.Hash{}, err
	}
	if on.State == ports.EscrowFunded && on.ExpiresAt.After(now) && c.Status == claim.StatusExpired {
		if _, err := esc.ExpireClaimNow(ctx, id); err != nil {
			return common.Hash{}, err
		}
	}
	return esc.RefundClaim(ctx, id)
}

func recordClaimTx(c *claim.Claim, action, hash string) {
	switch action {
	case claimActionFund:
		c.FundTxHash = hash
	case claimActionLock:
		c.LockTxHash = hash
	case claimActionRelease:
		c.ReleaseTxHash = hash
	case claimActionRefund:
		c.RefundTxHash = hash
	case claimActionCancel:
		c.CancelTxHash = hash
	}
}

func (a *App) enqueueClaimIndex(ctx context.Context, env core.Environment) error {
	return a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		return a.jobs.Enqueue(ctx, ClaimIndexArgs{Environment: string(env)}, ports.JobOptions{MaxAttempts: 3})
	})
}

func (a *App) logger() *slog.Logger {
	if a.log != nil {
		return a.log
	}
	return slog.New(slog.DiscardHandler)
}

// IndexClaimEscrow applies the escrow contract's events since the environment's cursor. Logs
// are read outside any transaction; the cursor is then locked again and, if no other run moved
// it meanwhile, every log is applied once (an event already recorded changes nothing) and the
// cursor moves past the range.
func (a *App) IndexClaimEscrow(ctx context.Context, env core.Environment) error {
	esc, err := a.escrow(env)
	if err != nil {
		return nil
	}
	ch, err := a.chains.Chain(env)
	if err != nil {
		return nil
	}
	chainID := ch.ChainID()
	for i := 0; i < maxClaimIndexRanges; i++ {
		latest, err := ch.LatestBlock(ctx)
		if err != nil {
			return err
		}
		var from uint64
		if err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			cur, err := tx.Claims().LockEscrowCursor(ctx, env, chainID, a.clock.Now())
			from = cur.NextBlock
			return err
		}); err != nil {
			return err
		}
		if from > latest {
			return nil
		}
		to := min(latest, from+ports.MaxLogBlockRange-1)
		logs, err := esc.ClaimEscrowLogs(ctx, from, to)
		if err != nil {
			return err
		}
		moved := false
		if err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			now := a.clock.Now()
			cur, err := tx.Claims().LockEscrowCursor(ctx, env, chainID, now)
			if err != nil || cur.NextBlock != from {
				return err // another run indexed this range
			}
			for _, l := range logs {
				if err := a.applyEscrowLog(ctx, tx, env, chainID, l, now); err != nil {
					return err
				}
			}
			cur.NextBlock, cur.UpdatedAt, moved = to+1, now, true
			return tx.Claims().SaveEscrowCursor(ctx, cur)
		}); err != nil || !moved || to >= latest {
			return err
		}
	}
	return nil
}

// applyEscrowLog applies one escrow event to its claim and payment, with the ledger transfer
// the change needs: funding posts the reservation into the claim's escrow account; a refund
// moves the escrow back to the sender (REFUNDED); a cancel voids the reservation (CANCELED).
func (a *App) applyEscrowLog(ctx context.Context, tx ports.Tx, env core.Environment, chainID int64, l ports.EscrowLog, now time.Time) error {
	c, err := tx.Claims().LockClaimByOnchainID(ctx, env, chainID, "0x"+hex.EncodeToString(l.ClaimID[:]))
	if isCode(err, claim.CodeClaimNotFound) {
		return nil // an escrow id this deployment did not open
	}
	if err != nil {
		return err
	}
	fresh, err := tx.Claims().RecordEscrowEvent(ctx, chainID, l.TxHash.Hex(), l.LogIndex, c.ID, l.Kind, now)
	if err != nil || !fresh {
		return err
	}
	pay, err := tx.Offramp().LockPayment(ctx, c.PaymentID)
	if err != nil {
		return err
	}
	out := c.ApplyEvent(claim.Event{Kind: l.Kind, TxHash: l.TxHash.Hex()}, now)
	if out.FundedNow {
		if c.FundTxHash == "" {
			c.FundTxHash = l.TxHash.Hex()
		}
		if err := a.postClaimReservation(ctx, tx, now, &pay, c); err != nil {
			return err
		}
	}
	if out.Changed && out.From != out.To {
		switch out.To {
		case claim.StatusRefunded:
			if err := a.settleClaimRefund(ctx, tx, now, &pay, c); err != nil {
				return err
			}
		case claim.StatusCanceled:
			if pay.Status == offramp.StatusPendingClaim {
				if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigClaimExpires, Guard: offramp.GuardClaimUnfunded}, now); err != nil {
					return err
				}
				pay.FailureReason = "CLAIM_EXPIRED"
				if err := a.voidReservation(ctx, tx, now, &pay); err != nil {
					return err
				}
			}
		}
	}
	if !out.Changed {
		return nil
	}
	if err := tx.Claims().UpdateClaim(ctx, c); err != nil {
		return err
	}
	return tx.Offramp().UpdatePayment(ctx, pay)
}

// postClaimReservation posts a claim payment's reservation into the claim's escrow account
// once the escrow funding is indexed (D12: funded from here). A claim that expired before its
// funding landed goes straight to the refund path: funds win over expiry.
func (a *App) postClaimReservation(ctx context.Context, tx ports.Tx, now time.Time, pay *offramp.Payment, c claim.Claim) error {
	if pay.Status != offramp.StatusPendingClaim || pay.HoldTransferID == "" {
		return nil
	}
	if _, err := a.post(ctx, tx, now, *pay, ledger.TransferSpec{Reference: paymentRef(*pay, "claim-funded", pay.Reservation),
		Type: ledger.TypePostPending, PendingID: pay.HoldTransferID, Amount: pay.SourceAmountBaseUnits}); err != nil {
		return err
	}
	pay.HoldTransferID, pay.UpdatedAt = "", now
	if c.Status != claim.StatusExpired {
		return nil
	}
	if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigClaimExpires, Guard: offramp.GuardClaimFunded}, now); err != nil {
		return err
	}
	pay.FailureReason = "CLAIM_EXPIRED"
	return a.jobs.Enqueue(ctx, ClaimChainArgs{ClaimID: c.ID, Action: claimActionRefund}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts})
}

// settleClaimRefund books an indexed on-chain refund: the escrow account back to the sender,
// and the payment REFUNDED.
func (a *App) settleClaimRefund(ctx context.Context, tx ports.Tx, now time.Time, pay *offramp.Payment, c claim.Claim) error {
	if pay.Status == offramp.StatusPendingClaim {
		if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigClaimExpires, Guard: offramp.GuardClaimFunded}, now); err != nil {
			return err
		}
		pay.FailureReason = "CLAIM_EXPIRED"
	}
	if pay.Status != offramp.StatusRefundPending {
		return nil
	}
	accs, err := tx.Ledger().OpenAccounts(ctx, now, claimEscrowSpec(c), ledger.TenantAvailable(pay.Environment, kernel.ServiceAsset, pay.SenderTenantID))
	if err != nil {
		return err
	}
	if _, err := a.post(ctx, tx, now, *pay, ledger.TransferSpec{Reference: "offramp:" + pay.ID + ":claim-refund",
		Type: ledger.TypePosted, Postings: ledger.Move(accs[0].ID, accs[1].ID, pay.SourceAmountBaseUnits),
		Metadata: map[string]string{"claimId": c.ID, "refundTxHash": c.RefundTxHash}}); err != nil {
		return err
	}
	_, err = pay.Apply(offramp.Step{Trigger: offramp.TrigRefundSettled}, now)
	return err
}

// ExpireDueClaims is the periodic expiry pass.
func (a *App) ExpireDueClaims(ctx context.Context) error {
	now := a.clock.Now()
	var ids []string
	if err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		ids, err = tx.Claims().DueClaimIDs(ctx, now, a.claimGrace(), maxDueClaims)
		return err
	}); err != nil {
		return err
	}
	for _, id := range ids {
		if err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			c, err := tx.Claims().LockClaim(ctx, id)
			if err != nil {
				return err
			}
			pay, err := tx.Offramp().LockPayment(ctx, c.PaymentID)
			if err != nil {
				return err
			}
			return a.expireClaim(ctx, tx, a.clock.Now(), &c, &pay)
		}); err != nil {
			return err
		}
	}
	return nil
}

// claimGrace is the escrow's grace period (the longest configured, to be safe).
func (a *App) claimGrace() time.Duration {
	g := claim.DefaultGracePeriod
	for _, e := range a.claims.escrows {
		if e != nil && e.ClaimGracePeriod() > g {
			g = e.ClaimGracePeriod()
		}
	}
	return g
}

// expireClaim applies a claim's expiry, when due, to the claim and its payment and enqueues the
// escrow transaction it needs:
//   - an unredeemed OPEN claim past expiry becomes EXPIRED; funded, the payment goes to
//     REFUND_PENDING and the escrow is refunded (REFUNDED follows the indexed refund);
//     unfunded, the escrow id is cancelled (CANCELED follows the indexed cancel, or the refund
//     path if the funding landed after all);
//   - a redeemed claim whose payment never locked its funds becomes refundable only after
//     expiry plus the grace period (funds win over expiry): the payment goes to REFUND_PENDING
//     and the escrow is refunded.
func (a *App) expireClaim(ctx context.Context, tx ports.Tx, now time.Time, c *claim.Claim, pay *offramp.Payment) error {
	action := ""
	switch {
	case c.Status == claim.StatusOpen && c.RedeemedAt == nil && c.Refundable(now, a.claimGrace()):
		if err := c.Apply(claim.TrigExpiry, now); err != nil {
			return err
		}
		action = claimActionCancel
		if c.Funded {
			action = claimActionRefund
			if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigClaimExpires, Guard: offramp.GuardClaimFunded}, now); err != nil {
				return err
			}
			pay.FailureReason = "CLAIM_EXPIRED"
		}
	case c.RedeemedAt != nil && c.Refundable(now, a.claimGrace()) && claimFunded(*pay):
		if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigClaimExpires, Guard: offramp.GuardClaimFunded}, now); err != nil {
			return err
		}
		if err := tx.Offramp().SupersedeQuotes(ctx, pay.ID, offramp.QuoteSuperseded); err != nil {
			return err
		}
		pay.SelectedQuoteID, pay.FailureReason = "", "CLAIM_EXPIRED"
		action = claimActionRefund
	default:
		return nil
	}
	if err := tx.Claims().UpdateClaim(ctx, *c); err != nil {
		return err
	}
	if err := tx.Offramp().UpdatePayment(ctx, *pay); err != nil {
		return err
	}
	return a.jobs.Enqueue(ctx, ClaimChainArgs{ClaimID: c.ID, Action: action}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts})
}
