package safepayments

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

// savePayment writes a payment and, in the same unit of work, the event of the status it
// reached (safe_payment.<status>; none when the status did not change). A final payment is
// also told to the outcomes listener (a treasury sweep's own event).
func (s *Service) savePayment(ctx context.Context, tx ports.Tx, p safepay.Payment, create bool) error {
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
		if s.outcomes != nil {
			return s.outcomes.PaymentFinal(ctx, tx, p)
		}
	}
	return nil
}
