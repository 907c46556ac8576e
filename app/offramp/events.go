package offramp

import (
	"context"

	"corridor/app/kernel"
	"corridor/core/claim"
	"corridor/core/offramp"
	"corridor/ports"
)

// savePayment writes an off-ramp payment and, in the same unit of work, the sender's event of
// the status it reached (offramp_payment.<status>; none when the status did not change).
func savePayment(ctx context.Context, tx ports.Tx, p offramp.Payment) error {
	if err := tx.Offramp().UpdatePayment(ctx, p); err != nil {
		return err
	}
	return kernel.RecordEvent(ctx, tx, p.SenderTenantID, p.Environment, "offramp_payment", p.ID, string(p.Status),
		p.SourceAmountBaseUnits, p.UpdatedAt, nil)
}

// createClaim records a new claim and its opening event (claim.<status>).
func createClaim(ctx context.Context, tx ports.Tx, c claim.Claim) error {
	if err := tx.Claims().CreateClaim(ctx, c); err != nil {
		return err
	}
	return claimEvent(ctx, tx, c)
}

// saveClaim writes a claim and the sender's event of the status it reached (claim.<status>).
// The phone number is never part of it.
func saveClaim(ctx context.Context, tx ports.Tx, c claim.Claim) error {
	if err := tx.Claims().UpdateClaim(ctx, c); err != nil {
		return err
	}
	return claimEvent(ctx, tx, c)
}

func claimEvent(ctx context.Context, tx ports.Tx, c claim.Claim) error {
	return kernel.RecordEvent(ctx, tx, c.SenderTenantID, c.Environment, "claim", c.ID, string(c.Status), c.AmountBaseUnits,
		c.UpdatedAt, map[string]any{"paymentId": c.PaymentID})
}
