package agent

import (
	"time"

	"github.com/corridorhq/corridor/core"
)

// Windows are the starts of the spend windows an instant falls in (docs/decisions/agents.md): the UTC day, the ISO
// week (Monday 00:00 UTC) and the calendar month. A window runs from its start to the next.
type Windows struct {
	Day, Week, Month time.Time
}

// WindowsAt returns the windows of at, in UTC.
func WindowsAt(at time.Time) Windows {
	t := at.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	// time.Weekday counts from Sunday; an ISO week starts on Monday.
	back := (int(day.Weekday()) + 6) % 7
	return Windows{
		Day:   day,
		Week:  day.AddDate(0, 0, -back),
		Month: time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC),
	}
}

// Spent is the spend counted in each window of one instant, in USD base units.
type Spent struct {
	Day, Week, Month int64
}

// Window names used in AGENT_LIMIT details.
const (
	WindowPerTransaction = "perTransaction"
	WindowDaily          = "daily"
	WindowWeekly         = "weekly"
	WindowMonthly        = "monthly"
)

// CheckSpend decides whether amount fits the caps given what the windows already spent: a
// spend exactly at a cap passes, one base unit over is AGENT_LIMIT naming the window. The
// per-transaction cap is checked first, then day, week and month.
func CheckSpend(l Limits, spent Spent, amount int64) error {
	if l.PerTransaction != nil && amount > *l.PerTransaction {
		return limitError(WindowPerTransaction, *l.PerTransaction, 0, amount)
	}
	for _, w := range []struct {
		name  string
		cap   *int64
		spent int64
	}{{WindowDaily, l.Daily, spent.Day}, {WindowWeekly, l.Weekly, spent.Week}, {WindowMonthly, l.Monthly, spent.Month}} {
		if w.cap == nil {
			continue
		}
		total, err := core.AddInt64(w.spent, amount)
		if err != nil || total > *w.cap {
			return limitError(w.name, *w.cap, w.spent, amount)
		}
	}
	return nil
}

func limitError(window string, limit, spent, amount int64) error {
	return core.E(CodeLimit, "this payment of %s USD would breach the agent's %s cap of %s USD (already spent in the window: %s USD)",
		core.FormatUSD(amount), window, core.FormatUSD(limit), core.FormatUSD(spent)).
		WithDetails(map[string]any{"window": window, "limitUsd": core.FormatUSD(limit),
			"spentUsd": core.FormatUSD(spent), "amountUsd": core.FormatUSD(amount)})
}

// LimitsPatch is a PUT of limits: a field that is Set changes (Value nil clears the cap); a
// field not set keeps its value.
type LimitsPatch struct {
	PerTransaction, Daily, Weekly, Monthly CapPatch
}

// CapPatch is one field of a LimitsPatch, already parsed to base units.
type CapPatch struct {
	Set   bool
	Value *int64
}

// Apply returns l with the patch applied.
func (p LimitsPatch) Apply(l Limits) Limits {
	for _, f := range []struct {
		patch CapPatch
		dst   **int64
	}{{p.PerTransaction, &l.PerTransaction}, {p.Daily, &l.Daily}, {p.Weekly, &l.Weekly}, {p.Monthly, &l.Monthly}} {
		if f.patch.Set {
			*f.dst = f.patch.Value
		}
	}
	return l
}
