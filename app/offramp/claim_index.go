package offramp

import (
	"context"
	"encoding/hex"
	"time"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/claim"
	"corridor/core/offramp"
	"corridor/ledger"
	"corridor/ports"
)

// IndexClaimEscrow applies the escrow contract's events since the environment's cursor. Logs
// are read outside any transaction; the cursor is then locked again and, if no other run moved
// it meanwhile, every log is applied once (an event already recorded changes nothing) and the
// cursor moves past the range.
func (s *Service) IndexClaimEscrow(ctx context.Context, env core.Environment) error {
	esc, err := s.escrow(env)
	if err != nil {
		return nil
	}
	ch, err := s.chains.Chain(env)
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
		if err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			cur, err := tx.Claims().LockEscrowCursor(ctx, env, chainID, s.clock.Now())
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
		if err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			moved = false // only the committed run says whether the cursor moved
			now := s.clock.Now()
			cur, err := tx.Claims().LockEscrowCursor(ctx, env, chainID, now)
			if err != nil || cur.NextBlock != from {
				return err // another run indexed this range
			}
			for _, l := range logs {
				if err := s.applyEscrowLog(ctx, tx, env, chainID, l, now); err != nil {
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
func (s *Service) applyEscrowLog(ctx context.Context, tx ports.Tx, env core.Environment, chainID int64, l ports.EscrowLog, now time.Time) error {
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
		if err := s.postClaimReservation(ctx, tx, now, &pay, c); err != nil {
			return err
		}
	}
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
				if err := s.voidReservation(ctx, tx, now, &pay); err != nil {
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
func (s *Service) postClaimReservation(ctx context.Context, tx ports.Tx, now time.Time, pay *offramp.Payment, c claim.Claim) error {
	if pay.Status != offramp.StatusPendingClaim || pay.HoldTransferID == "" {
		return nil
	}
	if _, err := s.post(ctx, tx, now, *pay, ledger.TransferSpec{Reference: paymentRef(*pay, "claim-funded", pay.Reservation),
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
	return s.jobs.Enqueue(ctx, ClaimChainArgs{ClaimID: c.ID, Action: claimActionRefund}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts})
}

// settleClaimRefund books an indexed on-chain refund: the escrow account back to the sender,
// and the payment REFUNDED.
func (s *Service) settleClaimRefund(ctx context.Context, tx ports.Tx, now time.Time, pay *offramp.Payment, c claim.Claim) error {
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
	if _, err := s.post(ctx, tx, now, *pay, ledger.TransferSpec{Reference: "offramp:" + pay.ID + ":claim-refund",
		Type: ledger.TypePosted, Postings: ledger.Move(accs[0].ID, accs[1].ID, pay.SourceAmountBaseUnits),
		Metadata: map[string]string{"claimId": c.ID, "refundTxHash": c.RefundTxHash}}); err != nil {
		return err
	}
	_, err = pay.Apply(offramp.Step{Trigger: offramp.TrigRefundSettled}, now)
	return err
}
