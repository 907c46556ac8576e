package claims

import (
	"context"
	"encoding/hex"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// IndexClaimEscrow applies the escrow contract's events since the environment's cursor
// (escrowIndexer.indexClaimEscrow).
func (s *Service) IndexClaimEscrow(ctx context.Context, env core.Environment) error {
	return newEscrowIndexer(s).indexClaimEscrow(ctx, env)
}

// escrowIndexer is the claims capability's mirror of the escrow contract: it applies the
// contract's events to claims and the ledger, and undoes what a reorg dropped. It holds only
// the ports its indexing job uses (not the Service), so the request-facing Service stays within
// the method bound of test/architecture and the indexer cannot reach the rest of it.
type escrowIndexer struct {
	store         kernel.Units[txView]
	jobs          ports.Jobs
	clock         ports.Clock
	chains        kernel.Chains
	escrows       kernel.ClaimEscrows
	confirmations map[core.Environment]uint64
	payments      Payments
	log           *slog.Logger
}

// newEscrowIndexer hands the indexer the ports it uses, and nothing more (a function, not a
// Service method, so it takes no room in the Service's method bound).
func newEscrowIndexer(s *Service) escrowIndexer {
	return escrowIndexer{store: s.store, jobs: s.jobs, clock: s.clock, chains: s.chains, escrows: s.escrows,
		confirmations: s.confirmations, payments: s.payments, log: s.log}
}

// indexClaimEscrow applies the escrow contract's events since the environment's cursor, up to
// the environment's confirmation depth below the head. It first undoes what blocks a reorg
// dropped (undoEscrowReorg). Logs are read outside any transaction; the cursor is then locked
// again and, if no other run moved it meanwhile, every log is applied once (an event already
// recorded changes nothing), each in its own savepoint: a log that cannot be applied is recorded
// in background_failures and skipped, and the cursor moves past the range.
func (s escrowIndexer) indexClaimEscrow(ctx context.Context, env core.Environment) error {
	esc, err := s.escrows.Require(env)
	if err != nil {
		return nil
	}
	ch, err := s.chains.Chain(env)
	if err != nil {
		return nil
	}
	chainID := ch.ChainID()
	if err := s.undoEscrowReorg(ctx, ch, env); err != nil {
		return err
	}
	depth := s.confirmations[env]
	for i := 0; i < maxClaimIndexRanges; i++ {
		head, err := ch.LatestBlock(ctx)
		if err != nil {
			return err
		}
		var from uint64
		if err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
			cur, err := tx.Claims().LockEscrowCursor(ctx, env, chainID, s.clock.Now())
			from = cur.NextBlock
			return err
		}); err != nil {
			return err
		}
		if head < depth || from > head-depth {
			return nil
		}
		latest := head - depth
		to := min(latest, from+ports.MaxLogBlockRange-1)
		logs, err := esc.ClaimEscrowLogs(ctx, from, to)
		if err != nil {
			return err
		}
		blocks := make(map[uint64]common.Hash, len(logs))
		for _, l := range logs {
			blocks[l.BlockNumber] = l.BlockHash
		}
		hashes, err := kernel.RangeBlockHashes(ctx, ch, to, blocks)
		if err != nil {
			return err
		}
		moved, err := s.commitEscrowRange(ctx, env, chainID, escrowRange{from: from, to: to, logs: logs, hashes: hashes})
		if err != nil || !moved || to >= latest {
			return err
		}
	}
	return nil
}

// escrowRange is one range of escrow logs read outside any transaction, with the hashes of the
// blocks it records.
type escrowRange struct {
	from, to uint64
	logs     []ports.EscrowLog
	hashes   map[uint64]string
}

// commitEscrowRange applies a range's logs and moves the cursor past it in one transaction,
// unless another run moved the cursor meanwhile; moved says whether this run did.
func (s escrowIndexer) commitEscrowRange(ctx context.Context, env core.Environment, chainID int64, r escrowRange) (bool, error) {
	moved := false
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		moved = false // only the committed run says whether the cursor moved
		now := s.clock.Now()
		cur, err := tx.Claims().LockEscrowCursor(ctx, env, chainID, now)
		if err != nil || cur.NextBlock != r.from {
			return err // another run indexed this range
		}
		items := map[uint64][]string{}
		for _, l := range r.logs {
			applied, err := s.applyEscrowLogOnce(ctx, tx, env, chainID, l, now)
			if err != nil {
				return err
			}
			items[l.BlockNumber] = append(items[l.BlockNumber], applied...)
		}
		if err := kernel.RecordIndexedBlocks(ctx, tx, ports.IndexerClaimEscrow, env, chainID, r.to, r.hashes, items, now); err != nil {
			return err
		}
		cur.NextBlock, cur.UpdatedAt, moved = r.to+1, now, true
		return tx.Claims().SaveEscrowCursor(ctx, cur)
	})
	return moved, err
}

// applyEscrowLogOnce applies one log in a savepoint and returns the items its block records
// (the event key, and the transfer a funding posted). A log that fails is rolled back alone,
// logged and recorded as DEAD in background_failures (a retry would meet the same claim in the
// same state), so it does not stall the logs after it; an error is returned only when even the
// failure cannot be recorded.
func (s escrowIndexer) applyEscrowLogOnce(ctx context.Context, tx txView, env core.Environment, chainID int64, l ports.EscrowLog, now time.Time) ([]string, error) {
	var items []string
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		items, err = s.applyEscrowLog(ctx, tx, env, chainID, l, now)
		return err
	})
	if err == nil || ctx.Err() != nil {
		return items, err
	}
	key := escrowEventKey(l.TxHash.Hex(), l.LogIndex)
	f, ferr := tx.ChainIndex().RecordFailure(ctx, PassClaimIndex, key, env, err.Error(), 1, now)
	if ferr != nil {
		return nil, ferr
	}
	s.log.Error("claim escrow indexer: skipped an escrow event it cannot apply; an operator must look at the claim",
		"environment", env, "event", key, "kind", l.Kind, "claimEscrowId", "0x"+hex.EncodeToString(l.ClaimID[:]),
		"error", err.Error(), "attempts", f.Attempts)
	return nil, nil
}

// applyEscrowLog applies one escrow event to its claim and payment, with the ledger transfer
// the change needs: funding posts the reservation into the claim's escrow account; a refund
// moves the escrow back to the sender (REFUNDED); a cancel voids the reservation (CANCELED).
// It returns what the log's block records for a reorg: the event's key, and the id of the
// funding transfer it posted (escrowTransferItem).
func (s escrowIndexer) applyEscrowLog(ctx context.Context, tx txView, env core.Environment, chainID int64, l ports.EscrowLog, now time.Time) ([]string, error) {
	c, err := tx.Claims().LockClaimByOnchainID(ctx, env, chainID, "0x"+hex.EncodeToString(l.ClaimID[:]))
	if core.HasCode(err, claim.CodeClaimNotFound) {
		return nil, nil // an escrow id this deployment did not open
	}
	if err != nil {
		return nil, err
	}
	fresh, err := tx.Claims().RecordEscrowEvent(ctx, c.SenderTenantID, chainID, l.TxHash.Hex(), l.LogIndex, c.ID, l.Kind, now)
	if err != nil || !fresh {
		return nil, err
	}
	items := []string{escrowEventKey(l.TxHash.Hex(), l.LogIndex)}
	pay, err := tx.Offramp().LockPayment(ctx, c.PaymentID)
	if err != nil {
		return nil, err
	}
	out := c.ApplyEvent(claim.Event{Kind: l.Kind, TxHash: l.TxHash.Hex()}, now)
	if out.FundedNow {
		if c.FundTxHash == "" {
			c.FundTxHash = l.TxHash.Hex()
		}
		fundingID, err := s.postClaimReservation(ctx, tx, now, &pay, c)
		if err != nil {
			return nil, err
		}
		if fundingID != "" {
			items[0] += escrowTransferSeparator + fundingID
		}
	}
	return items, s.settleEscrowEvent(ctx, tx, now, l, out, c, pay)
}

// settleEscrowEvent books what an applied event changed besides the funding.
func (s escrowIndexer) settleEscrowEvent(ctx context.Context, tx txView, now time.Time, l ports.EscrowLog, out claim.Outcome, c claim.Claim, pay offramp.Payment) error {
	if out.Changed && out.From != out.To {
		switch out.To {
		case claim.StatusRefunded:
			if err := s.settleClaimRefund(ctx, tx, now, &pay, c); err != nil {
				return err
			}
		case claim.StatusCanceled:
			if pay.Status == offramp.StatusPendingClaim {
				if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigClaimExpires, Guard: offramp.GuardClaimUnfunded}, now); err != nil {
					return err
				}
				pay.FailureReason = "CLAIM_EXPIRED"
				if err := s.payments.VoidReservation(ctx, tx.Ledger(), now, &pay); err != nil {
					return err
				}
			}
		}
	}
	if !out.Changed {
		return nil
	}
	if err := saveClaim(ctx, tx, c); err != nil {
		return err
	}
	return s.payments.SavePayment(ctx, tx, pay)
}

// postClaimReservation posts a claim payment's reservation into the claim's escrow account
// once the escrow funding is indexed (docs/decisions/ledger.md: funded from here). A claim that expired before its
// funding landed goes straight to the refund path: funds win over expiry.
// It returns the id of the transfer it posted ("" when it posted none).
func (s escrowIndexer) postClaimReservation(ctx context.Context, tx txView, now time.Time, pay *offramp.Payment, c claim.Claim) (string, error) {
	if pay.Status == offramp.StatusCanceled && c.Status == claim.StatusExpired {
		// Canceled by its sender while the funding was in flight: the ledger never took the
		// money, so the escrow refunds the settlement account's funding on chain.
		return "", s.jobs.Enqueue(ctx, ClaimChainArgs{ClaimID: c.ID, Action: claimActionRefund}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts})
	}
	if pay.Status != offramp.StatusPendingClaim || pay.HoldTransferID == "" {
		return "", nil
	}
	t, err := s.payments.Post(ctx, tx.Ledger(), now, *pay, ledger.TransferSpec{Reference: pay.LedgerRef("claim-funded", pay.Reservation),
		Type: ledger.TypePostPending, PendingID: pay.HoldTransferID, Amount: pay.SourceAmountBaseUnits})
	if err != nil {
		return "", err
	}
	pay.HoldTransferID, pay.UpdatedAt = "", now
	if c.Status != claim.StatusExpired {
		return t.ID, nil
	}
	if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigClaimExpires, Guard: offramp.GuardClaimFunded}, now); err != nil {
		return "", err
	}
	pay.FailureReason = "CLAIM_EXPIRED"
	return t.ID, s.jobs.Enqueue(ctx, ClaimChainArgs{ClaimID: c.ID, Action: claimActionRefund}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts})
}

// settleClaimRefund books an indexed on-chain refund: the escrow account back to the sender,
// and the payment REFUNDED.
func (s escrowIndexer) settleClaimRefund(ctx context.Context, tx txView, now time.Time, pay *offramp.Payment, c claim.Claim) error {
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
	if _, err := s.payments.Post(ctx, tx.Ledger(), now, *pay, ledger.TransferSpec{Reference: "offramp:" + pay.ID + ":claim-refund",
		Type: ledger.TypePosted, Postings: ledger.Move(accs[0].ID, accs[1].ID, pay.SourceAmountBaseUnits),
		Metadata: map[string]string{"claimId": c.ID, "refundTxHash": c.RefundTxHash}}); err != nil {
		return err
	}
	_, err = pay.Apply(offramp.Step{Trigger: offramp.TrigRefundSettled}, now)
	return err
}
