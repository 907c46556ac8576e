package claims

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ports"
)

// ExpireDueClaims is the periodic expiry pass. A claim that fails is logged and counted in
// background_failures (DEAD after claimExpiryMaxAttempts passes, then skipped), and the pass
// carries on with the rest; only a cancelled context ends it early.
func (s *Service) ExpireDueClaims(ctx context.Context) error {
	now := s.clock.Now()
	var ids []string
	if err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		ids, err = tx.Claims().DueClaimIDs(ctx, now, s.claimGrace(), maxDueClaims)
		return err
	}); err != nil {
		return err
	}
	for _, id := range ids {
		err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
			c, err := tx.Claims().LockClaim(ctx, id)
			if err != nil {
				return err
			}
			pay, err := tx.Offramp().LockPayment(ctx, c.PaymentID)
			if err != nil {
				return err
			}
			if err := s.expireClaim(ctx, tx, s.clock.Now(), &c, &pay); err != nil {
				return err
			}
			return tx.ChainIndex().ClearFailure(ctx, PassClaimExpiry, id)
		})
		if err != nil && ctx.Err() != nil {
			return err
		}
		if err != nil {
			s.recordExpiryFailure(ctx, id, err)
		}
	}
	return nil
}

// claimExpiryMaxAttempts is how many passes try a claim whose expiry fails before it is DEAD
// (skipped until an operator clears its background_failures row).
const claimExpiryMaxAttempts = 5

// recordExpiryFailure logs a claim the pass could not expire and counts the attempt, so the
// pass carries on with the other due claims instead of stopping at the first error.
func (s *Service) recordExpiryFailure(ctx context.Context, claimID string, cause error) {
	var f ports.BackgroundFailure
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		f, err = tx.ChainIndex().RecordFailure(ctx, PassClaimExpiry, claimID, "", cause.Error(), claimExpiryMaxAttempts, s.clock.Now())
		return err
	})
	if err != nil {
		s.log.Error("claim expiry: a claim failed and its failure could not be recorded", "claimId", claimID, "error", cause.Error(), "recordError", err.Error())
		return
	}
	s.log.Error("claim expiry: a claim failed; the pass carries on", "claimId", claimID, "error", cause.Error(),
		"attempts", f.Attempts, "status", f.Status)
}

// claimGrace is the escrow's grace period (the longest configured, to be safe).
func (s *Service) claimGrace() time.Duration {
	g := claim.DefaultGracePeriod
	for _, e := range s.escrows {
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
func (s *Service) expireClaim(ctx context.Context, tx txView, now time.Time, c *claim.Claim, pay *offramp.Payment) error {
	action := ""
	switch {
	case c.Status == claim.StatusOpen && c.RedeemedAt == nil && c.Refundable(now, s.claimGrace()):
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
	case c.RedeemedAt != nil && c.Refundable(now, s.claimGrace()) && pay.ClaimFunded():
		if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigClaimExpires, Guard: offramp.GuardClaimFunded}, now); err != nil {
			return err
		}
		if err := tx.Offramp().SupersedeQuotes(ctx, pay.SenderTenantID, pay.ID, offramp.QuoteSuperseded); err != nil {
			return err
		}
		pay.SelectedQuoteID, pay.FailureReason = "", "CLAIM_EXPIRED"
		action = claimActionRefund
	default:
		return nil
	}
	if err := saveClaim(ctx, tx, *c); err != nil {
		return err
	}
	if err := s.payments.SavePayment(ctx, tx, *pay); err != nil {
		return err
	}
	return s.jobs.Enqueue(ctx, ClaimChainArgs{ClaimID: c.ID, Action: action}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts})
}
