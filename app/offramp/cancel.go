package offramp

import (
	"context"
	"time"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/auth"
	"corridor/core/claim"
	"corridor/core/offramp"
	"corridor/ports"
)

// CancelPayment is the sender's cancel, accepted only while the payment is unfunded:
// the reservation is voided and the payment ends CANCELED. A pending claim is unfunded until
// its escrow funding is indexed (D12).
func (s *Service) CancelPayment(ctx context.Context, pr auth.Principal, id string) (offramp.Payment, error) {
	if err := kernel.RequireTenantScope(pr, auth.ScopeRampsWrite); err != nil {
		return offramp.Payment{}, err
	}
	now := s.clock.Now()
	var out offramp.Payment
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		pay, err := findForParty(ctx, tx, pr, id, true)
		if err != nil {
			return err
		}
		if pay.SenderTenantID != pr.TenantID {
			return core.E(offramp.CodeSenderOnly, "only the sender may cancel this payment")
		}
		if pay.Status == offramp.StatusPendingClaim {
			if err := s.cancelPendingClaim(ctx, tx, now, &pay); err != nil {
				return err
			}
			out = pay
			return savePayment(ctx, tx, pay)
		}
		if !pay.Status.Cancelable() || claimFunded(pay) {
			return core.E(core.CodeInvalidState, "the payment is %s: only an unfunded payment can be canceled", pay.Status)
		}
		if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigSenderCancel, Guard: offramp.GuardUnfundedPayment}, now); err != nil {
			return err
		}
		if err := s.voidReservation(ctx, tx, now, &pay); err != nil {
			return err
		}
		if err := tx.Offramp().SupersedeQuotes(ctx, pay.ID, offramp.QuoteSuperseded); err != nil {
			return err
		}
		pay.SelectedQuoteID, pay.FailureReason = "", "CANCELED_BY_SENDER"
		out = pay
		return savePayment(ctx, tx, pay)
	})
	return out, err
}

// cancelPendingClaim cancels a PENDING_CLAIM payment whose escrow funding has not been indexed:
// its reservation is voided, the payment ends CANCELED, and the claim closes (EXPIRED, then
// CANCELED once the escrow's cancel is indexed) with its link dead. The escrow id is cancelled
// on chain, so a funding still in flight reverts; a funding that landed first is refunded to
// the settlement account when indexed (the ledger never recorded it). A funded claim is
// refused: its money leaves only by the claim's refund at expiry.
func (s *Service) cancelPendingClaim(ctx context.Context, tx ports.Tx, now time.Time, pay *offramp.Payment) error {
	c, err := tx.Claims().LockClaim(ctx, pay.ClaimID)
	if err != nil {
		return err
	}
	if c.Funded || pay.HoldTransferID == "" {
		return core.E(offramp.CodeClaimFunded, "the claim's escrow is funded: it can no longer be canceled; it is refunded if nobody claims it by %s",
			c.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if c.Status != claim.StatusOpen || c.RedeemedAt != nil {
		return core.E(core.CodeInvalidState, "the claim is %s: only an open claim can be canceled", c.Status)
	}
	if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigSenderCancel, Guard: offramp.GuardClaimUnfunded}, now); err != nil {
		return err
	}
	if err := s.voidReservation(ctx, tx, now, pay); err != nil {
		return err
	}
	pay.FailureReason = "CANCELED_BY_SENDER"
	if err := c.Apply(claim.TrigExpiry, now); err != nil {
		return err
	}
	if err := tx.Claims().SupersedeLinks(ctx, c.ID, now); err != nil {
		return err
	}
	if err := saveClaim(ctx, tx, c); err != nil {
		return err
	}
	return s.jobs.Enqueue(ctx, ClaimChainArgs{ClaimID: c.ID, Action: claimActionCancel}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts})
}
