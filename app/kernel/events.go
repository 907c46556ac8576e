package kernel

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/event"
)

// RecordEvent writes a partner-facing event in the caller's unit of work (docs/decisions/webhooks.md): the
// event commits, or rolls back, with the state change it announces. kind and status name the
// type ("safe_payment", "COMPLETED" give safe_payment.completed); calling it again for an
// unchanged status records nothing. amount (base units, 0 =
// none) is shown as a USD decimal string; extra adds fields to data.
func RecordEvent(ctx context.Context, tx EventTx, tenantID string, env core.Environment, kind, resourceID, status string,
	amount int64, at time.Time, extra map[string]any) error {
	_, err := tx.Events().RecordEvent(ctx, StatusEvent(tenantID, env, kind, resourceID, status, amount, at, extra))
	return err
}

// StatusEvent is the event RecordEvent writes, for a repository that writes it together with
// the state change it announces (in the same statement).
func StatusEvent(tenantID string, env core.Environment, kind, resourceID, status string, amount int64, at time.Time,
	extra map[string]any) event.Event {
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
	return event.New(tenantID, env, event.TypeFor(kind, status), resourceID, data, at)
}

// RecordChangeEvent writes, in the caller's unit of work, an event announcing a change other
// than a status ("card", "LIMITS_UPDATED" give card.limits_updated). Unlike RecordEvent it is
// recorded every time, even right after another of its type: each change is news. data
// carries the resource's current status and extra.
func RecordChangeEvent(ctx context.Context, tx EventTx, tenantID string, env core.Environment, kind, resourceID, change, status string,
	at time.Time, extra map[string]any) error {
	data := map[string]any{"status": status}
	for k, v := range extra {
		data[k] = v
	}
	if at.IsZero() {
		at = time.Now()
	}
	e := event.New(tenantID, env, event.TypeFor(kind, change), resourceID, data, at)
	e.Repeatable = true
	_, err := tx.Events().RecordEvent(ctx, e)
	return err
}

// USDOrNil shows an optional amount (a cap) as a USD decimal string, or null when unset.
func USDOrNil(v *int64) any {
	if v == nil {
		return nil
	}
	return core.FormatUSD(*v)
}
