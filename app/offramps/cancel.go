package offramps

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/offramp"
)

// CancelPayment is the sender's cancel, accepted only while the payment is unfunded:
// the reservation is voided and the payment ends CANCELED. A pending claim is unfunded until
// its escrow funding is indexed (docs/decisions/ledger.md).
func (s *Service) CancelPayment(ctx context.Context, pr auth.Principal, id string) (offramp.Payment, error) {
	if err := kernel.RequireTenantScope(pr, auth.ScopeRampsWrite); err != nil {
		return offramp.Payment{}, err
	}
	now := s.clock.Now()
	var out offramp.Payment
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		pay, err := findForParty(ctx, tx, pr, id, true)
		if err != nil {
			return err
		}
		if pay.SenderTenantID != pr.TenantID {
			return core.E(offramp.CodeSenderOnly, "only the sender may cancel this payment")
		}
		if pay.Status == offramp.StatusPendingClaim {
			if err := s.claimCanceled.RaiseHeard(ctx, offramp.ClaimCanceled{Payment: &pay, At: now}); err != nil {
				return err
			}
			if pay.Status == offramp.StatusPendingClaim {
				return core.E(core.CodeInternal, "payment %s: its claim's cancel left it PENDING_CLAIM", pay.ID)
			}
			out = pay
			return savePayment(ctx, tx, pay)
		}
		if !pay.Status.Cancelable() || pay.ClaimFunded() {
			return core.E(core.CodeInvalidState, "the payment is %s: only an unfunded payment can be canceled", pay.Status)
		}
		if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigSenderCancel, Guard: offramp.GuardUnfundedPayment}, now); err != nil {
			return err
		}
		if err := s.VoidReservation(ctx, tx.Ledger(), now, &pay); err != nil {
			return err
		}
		if err := tx.Offramp().SupersedeQuotes(ctx, pay.SenderTenantID, pay.ID, offramp.QuoteSuperseded); err != nil {
			return err
		}
		pay.SelectedQuoteID, pay.FailureReason = "", "CANCELED_BY_SENDER"
		out = pay
		return savePayment(ctx, tx, pay)
	})
	return out, err
}
