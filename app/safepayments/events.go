package safepayments

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core/safepay"
)

// savePayment writes a payment and, in the same unit of work, the event of the status it
// reached (safe_payment.<status>; none when the status did not change). A final payment is
// also raised as the Finalized domain event (a treasury sweep announces its own outcome).
func (s *Service) savePayment(ctx context.Context, tx txView, p safepay.Payment, create bool) error {
	write := tx.Payments().UpdatePayment
	if create {
		write = tx.Payments().CreatePayment
	}
	if err := write(ctx, p); err != nil {
		return err
	}
	if err := kernel.RecordEvent(ctx, tx, p.TenantID, p.Environment, "safe_payment", p.ID, string(p.Status), p.AmountBaseUnits,
		p.UpdatedAt, map[string]any{"walletId": p.SourceWalletID}); err != nil {
		return err
	}
	switch p.Status {
	case safepay.StatusCompleted, safepay.StatusFailed, safepay.StatusCancelled:
		return s.finalized.Raise(ctx, safepay.Finalized{Payment: p})
	}
	return nil
}
