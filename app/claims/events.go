package claims

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core/claim"
)

// createClaim records a new claim and its opening event (claim.<status>).
func createClaim(ctx context.Context, tx txView, c claim.Claim) error {
	if err := tx.Claims().CreateClaim(ctx, c); err != nil {
		return err
	}
	return claimEvent(ctx, tx, c)
}

// saveClaim writes a claim and the sender's event of the status it reached (claim.<status>).
// The phone number is never part of it.
func saveClaim(ctx context.Context, tx txView, c claim.Claim) error {
	if err := tx.Claims().UpdateClaim(ctx, c); err != nil {
		return err
	}
	return claimEvent(ctx, tx, c)
}

func claimEvent(ctx context.Context, tx txView, c claim.Claim) error {
	return kernel.RecordEvent(ctx, tx, c.SenderTenantID, c.Environment, "claim", c.ID, string(c.Status), c.AmountBaseUnits,
		c.UpdatedAt, map[string]any{"paymentId": c.PaymentID})
}
