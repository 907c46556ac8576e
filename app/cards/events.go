package cards

import (
	"context"

	"corridor/app/kernel"
	"corridor/core/card"
	"corridor/ports"
)

// saveAuthorization writes an authorization and, in the same unit of work, the event of its
// status: card_authorization.approved or .declined when decided, .captured, .reversed.
func saveAuthorization(ctx context.Context, tx ports.Tx, a card.Authorization, create bool) error {
	write := tx.Cards().UpdateAuthorization
	if create {
		write = tx.Cards().CreateAuthorization
	}
	if err := write(ctx, a); err != nil {
		return err
	}
	extra := map[string]any{"cardId": a.CardID}
	if a.DeclineReason != "" {
		extra["declineReason"] = a.DeclineReason
	}
	if a.ReversalReason != "" {
		extra["reversalReason"] = a.ReversalReason
	}
	return kernel.RecordEvent(ctx, tx, a.TenantID, a.Environment, "card_authorization", a.ID, string(a.Status), a.Amount, a.UpdatedAt, extra)
}
