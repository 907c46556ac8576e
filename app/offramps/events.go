package offramps

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core/offramp"
)

// savePayment writes an off-ramp payment and, in the same unit of work, the sender's event of
// the status it reached (offramp_payment.<status>; none when the status did not change). While
// the payment carries a requote reason, the event carries it too (requoteReason).
func savePayment(ctx context.Context, tx txView, p offramp.Payment) error {
	if err := tx.Offramp().UpdatePayment(ctx, p); err != nil {
		return err
	}
	var extra map[string]any
	if p.RequoteReason != "" {
		extra = map[string]any{"requoteReason": string(p.RequoteReason)}
	}
	return kernel.RecordEvent(ctx, tx, p.SenderTenantID, p.Environment, "offramp_payment", p.ID, string(p.Status),
		p.SourceAmountBaseUnits, p.UpdatedAt, extra)
}
