package kernel

import (
	"context"
	"time"

	"corridor/core"
	"corridor/core/event"
	"corridor/ports"
)

// RecordEvent writes a partner-facing event in the caller's unit of work (DESIGN.md D18): the
// event commits, or rolls back, with the state change it announces. kind and status name the
// type ("safe_payment", "COMPLETED" give safe_payment.completed); calling it again for an
// unchanged status records nothing. amount (base units, 0 =
// none) is shown as a USD decimal string; extra adds fields to data.
func RecordEvent(ctx context.Context, tx ports.Tx, tenantID string, env core.Environment, kind, resourceID, status string,
	amount int64, at time.Time, extra map[string]any) error {
	data := map[string]any{"status": status}
	if amount != 0 {
		data["amount"] = core.FormatUSD(amount)
	}
	for k, v := range extra {
		data[k] = v
	}
	if at.IsZero() {
		at = time.Now()
	}
	_, err := tx.Events().RecordEvent(ctx, event.New(tenantID, env, event.TypeFor(kind, status), resourceID, data, at))
	return err
}
