package card

import (
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

func i64(v int64) *int64   { return &v }
func str(s string) *string { return &s }

func TestDecide_Order(t *testing.T) {
	base := Card{Status: StatusActive, Limits: Limits{BlockedMCC: []string{}}}
	rows := []struct {
		name  string
		card  func(Card) Card
		req   Request
		spent Spend
		want  string
	}{
		{"approved, no limits", func(c Card) Card { return c }, Request{100, "5411"}, Spend{}, ""},
		{"frozen wins over everything", func(c Card) Card {
			c.Status = StatusInactive
			c.Limits.BlockedMCC = []string{"5411"}
			c.Limits.PerTransaction = i64(1)
			return c
		}, Request{100, "5411"}, Spend{}, ReasonCardInactive},
		{"blocked before not allowed", func(c Card) Card {
			c.Limits.BlockedMCC = []string{"5411"}
			c.Limits.AllowedMCC = []string{"1234"}
			return c
		}, Request{100, "5411"}, Spend{}, ReasonMCCBlocked},
		{"short blocked entry matches padded", func(c Card) Card { c.Limits.BlockedMCC = []string{"54"}; return c }, Request{1, "0054"}, Spend{}, ReasonMCCBlocked},
		{"not allowed", func(c Card) Card { c.Limits.AllowedMCC = []string{"1234"}; return c }, Request{1, "5411"}, Spend{}, ReasonMCCNotAllowed},
		{"empty allowlist allows nothing", func(c Card) Card { c.Limits.AllowedMCC = []string{}; return c }, Request{1, "5411"}, Spend{}, ReasonMCCNotAllowed},
		{"allowed passes", func(c Card) Card { c.Limits.AllowedMCC = []string{"5411"}; return c }, Request{1, "5411"}, Spend{}, ""},
		{"not allowed before per txn", func(c Card) Card {
			c.Limits.AllowedMCC = []string{"1234"}
			c.Limits.PerTransaction = i64(1)
			return c
		}, Request{100, "5411"}, Spend{}, ReasonMCCNotAllowed},
		{"per txn", func(c Card) Card { c.Limits.PerTransaction = i64(99); c.Limits.Daily = i64(1); return c }, Request{100, "5411"}, Spend{}, ReasonPerTxnLimit},
		{"per txn equal passes", func(c Card) Card { c.Limits.PerTransaction = i64(100); return c }, Request{100, "5411"}, Spend{}, ""},
		{"daily cumulative", func(c Card) Card { c.Limits.Daily = i64(150); c.Limits.Weekly = i64(1); return c }, Request{100, "5411"}, Spend{Daily: 51}, ReasonDailyCap},
		{"daily exactly fits", func(c Card) Card { c.Limits.Daily = i64(150); return c }, Request{100, "5411"}, Spend{Daily: 50}, ""},
		{"weekly", func(c Card) Card { c.Limits.Weekly = i64(150); c.Limits.Monthly = i64(1); return c }, Request{100, "5411"}, Spend{Weekly: 51}, ReasonWeeklyCap},
		{"monthly", func(c Card) Card { c.Limits.Monthly = i64(150); return c }, Request{100, "5411"}, Spend{Monthly: 51}, ReasonMonthlyCap},
		{"overflow declines", func(c Card) Card { c.Limits.Daily = i64(1 << 62); return c }, Request{1 << 62, "5411"}, Spend{Daily: 1 << 62}, ReasonDailyCap},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			if got := Decide(r.card(base), r.req, r.spent); got != r.want {
				t.Fatalf("got %q, want %q", got, r.want)
			}
		})
	}
}

func TestLimits_Apply(t *testing.T) {
	start := Limits{Daily: i64(5_000_000), Weekly: i64(9_000_000), BlockedMCC: []string{"7995"}, AllowedMCC: []string{"5411"}}
	t.Run("omitted fields keep", func(t *testing.T) {
		got, err := start.Apply(LimitsPatch{MonthlyUsd: CapPatch{Set: true, Value: str("100.5")}})
		if err != nil || *got.Daily != 5_000_000 || *got.Weekly != 9_000_000 || *got.Monthly != 100_500_000 ||
			len(got.BlockedMCC) != 1 || len(got.AllowedMCC) != 1 {
			t.Fatalf("%+v %v", got, err)
		}
	})
	t.Run("null clears a cap and the allowlist", func(t *testing.T) {
		got, err := start.Apply(LimitsPatch{DailyUsd: CapPatch{Set: true}, AllowedMcc: ListPatch{Set: true, Null: true}})
		if err != nil || got.Daily != nil || got.AllowedMCC != nil || *got.Weekly != 9_000_000 {
			t.Fatalf("%+v %v", got, err)
		}
	})
	t.Run("blockedMcc replaces", func(t *testing.T) {
		got, err := start.Apply(LimitsPatch{BlockedMcc: ListPatch{Set: true, Value: []string{"5999", "54", "5999"}}})
		if err != nil || len(got.BlockedMCC) != 2 || got.BlockedMCC[0] != "54" {
			t.Fatalf("%+v %v", got, err)
		}
	})
	bad := []struct {
		field string
		p     LimitsPatch
	}{
		{"dailyUsd", LimitsPatch{DailyUsd: CapPatch{Set: true, Value: str("0")}}},
		{"dailyUsd", LimitsPatch{DailyUsd: CapPatch{Set: true, Value: str("-1")}}},
		{"weeklyUsd", LimitsPatch{WeeklyUsd: CapPatch{Set: true, Value: str("1.0000001")}}},
		{"monthlyUsd", LimitsPatch{MonthlyUsd: CapPatch{Set: true, Value: str("1e3")}}},
		{"perTransactionUsd", LimitsPatch{PerTransactionUsd: CapPatch{Set: true, Value: str("")}}},
		{"blockedMcc", LimitsPatch{BlockedMcc: ListPatch{Set: true, Value: []string{"5"}}}},
		{"allowedMcc", LimitsPatch{AllowedMcc: ListPatch{Set: true, Value: []string{"12345"}}}},
		{"allowedMcc", LimitsPatch{AllowedMcc: ListPatch{Set: true, Value: []string{"ab"}}}},
	}
	for _, b := range bad {
		if b.field != "monthlyUsd" {
			b.p.MonthlyUsd = CapPatch{Set: true, Value: str("1")} // a good field in the same body
		}
		got, err := start.Apply(b.p)
		e, ok := err.(*core.Error)
		if !ok || e.Code != core.CodeValidationFailed {
			t.Fatalf("%s: %v", b.field, err)
		}
		if _, named := e.Details["fields"].(map[string]any)[b.field]; !named {
			t.Fatalf("%s not named: %v", b.field, e.Details)
		}
		if !reflect.DeepEqual(got, start) {
			t.Fatalf("%s: a bad body changed something: %+v", b.field, got)
		}
	}
}

func TestAuthorization_StateMachine(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	approved := Authorization{ID: "cau_1", Amount: 1000, Status: AuthApproved}
	captured, err := approved.Capture(nil, now)
	if err != nil || captured.Status != AuthCaptured || captured.CapturedAmount != 1000 || captured.Consumed() != 1000 {
		t.Fatalf("whole capture: %+v %v", captured, err)
	}
	part, err := approved.Capture(i64(400), now)
	if err != nil || part.CapturedAmount != 400 || part.Consumed() != 400 {
		t.Fatalf("partial capture: %+v %v", part, err)
	}
	reversed, err := approved.Reverse(now, ReversalMerchant)
	if err != nil || reversed.Status != AuthReversed || reversed.Consumed() != 0 {
		t.Fatalf("reverse: %+v %v", reversed, err)
	}
	declined := Authorization{ID: "cau_2", Amount: 10, Status: AuthDeclined, DeclineReason: ReasonDailyCap}
	refused := []struct {
		name string
		code core.Code
		do   func() (Authorization, error)
	}{
		{"capture more than approved", core.CodeValidationFailed, func() (Authorization, error) { return approved.Capture(i64(1001), now) }},
		{"capture zero", core.CodeValidationFailed, func() (Authorization, error) { return approved.Capture(i64(0), now) }},
		{"capture twice", core.CodeInvalidState, func() (Authorization, error) { return captured.Capture(nil, now) }},
		{"reverse after capture", core.CodeInvalidState, func() (Authorization, error) { return captured.Reverse(now, ReversalMerchant) }},
		{"reverse twice", core.CodeInvalidState, func() (Authorization, error) { return reversed.Reverse(now, ReversalMerchant) }},
		{"capture after reverse", core.CodeInvalidState, func() (Authorization, error) { return reversed.Capture(nil, now) }},
		{"capture declined", core.CodeInvalidState, func() (Authorization, error) { return declined.Capture(nil, now) }},
		{"reverse declined", core.CodeInvalidState, func() (Authorization, error) { return declined.Reverse(now, ReversalMerchant) }},
	}
	for _, r := range refused {
		_, err := r.do()
		if e, ok := err.(*core.Error); !ok || e.Code != r.code {
			t.Fatalf("%s: %v", r.name, err)
		}
	}
	if declined.Consumed() != 0 {
		t.Fatal("a decline consumes nothing")
	}
}

func TestCard_FreezeIsReversible(t *testing.T) {
	now := time.Now()
	c := Card{Status: StatusActive}
	f := c.Freeze(now)
	if f.Status != StatusInactive || f.Freeze(now).Status != StatusInactive {
		t.Fatal(f)
	}
	if u := f.Unfreeze(now); u.Status != StatusActive || u.Unfreeze(now).Status != StatusActive {
		t.Fatal(u)
	}
}

func TestWindows_Rows(t *testing.T) {
	rows := []struct {
		at               string
		day, week, month string
	}{
		{"2026-01-01T00:00:00Z", "2026-01-01", "2026-W01", "2026-01"},
		{"2027-01-01T12:00:00Z", "2027-01-01", "2026-W53", "2027-01"}, // a Friday in 2026's week 53
		{"2024-12-30T00:00:00Z", "2024-12-30", "2025-W01", "2024-12"}, // a Monday in 2025's week 1
		{"2024-02-29T23:59:59.999999999Z", "2024-02-29", "2024-W09", "2024-02"},
		{"2024-03-01T00:00:00Z", "2024-03-01", "2024-W09", "2024-03"},
		{"2026-03-01T01:00:00+02:00", "2026-02-28", "2026-W09", "2026-02"}, // UTC, not local
		{"2026-11-29T23:59:59Z", "2026-11-29", "2026-W48", "2026-11"},      // Sunday ends the week
		{"2026-11-30T00:00:00Z", "2026-11-30", "2026-W49", "2026-11"},      // Monday starts one
	}
	for _, r := range rows {
		at, err := time.Parse(time.RFC3339Nano, r.at)
		if err != nil {
			t.Fatal(err)
		}
		if got := WindowsAt(at); got != (Windows{r.day, r.week, r.month}) {
			t.Errorf("%s: %+v", r.at, got)
		}
	}
}

// Property: two instants share a day key iff they fall on one UTC date; a week key iff the
// Mondays starting their weeks are equal; a month key iff year and month are equal. And the
// key changes exactly at each window's start.
func TestWindows_Properties(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	monday := func(t time.Time) time.Time {
		t = t.UTC()
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	}
	start := time.Date(2019, 12, 20, 0, 0, 0, 0, time.UTC).Unix()
	for i := 0; i < 20000; i++ {
		a := time.Unix(start+rng.Int63n(10*365*86400), 0).UTC()
		b := a.Add(time.Duration(rng.Int63n(40*86400)) * time.Second)
		wa, wb := WindowsAt(a), WindowsAt(b)
		if (wa.Day == wb.Day) != (a.Format("2006-01-02") == b.Format("2006-01-02")) {
			t.Fatalf("day %s %s", a, b)
		}
		if (wa.Week == wb.Week) != monday(a).Equal(monday(b)) {
			t.Fatalf("week %s %s: %s %s", a, b, wa.Week, wb.Week)
		}
		if (wa.Month == wb.Month) != (a.Year() == b.Year() && a.Month() == b.Month()) {
			t.Fatalf("month %s %s", a, b)
		}
		// A window's first instant and the instant before it never share the key.
		d := time.Date(a.Year(), a.Month(), a.Day(), 0, 0, 0, 0, time.UTC)
		if WindowsAt(d).Day == WindowsAt(d.Add(-time.Nanosecond)).Day {
			t.Fatalf("day boundary %s", d)
		}
		m := monday(a)
		if WindowsAt(m).Week == WindowsAt(m.Add(-time.Nanosecond)).Week || WindowsAt(m).Week != WindowsAt(m.AddDate(0, 0, 7).Add(-time.Nanosecond)).Week {
			t.Fatalf("week boundary %s", m)
		}
		first := time.Date(a.Year(), a.Month(), 1, 0, 0, 0, 0, time.UTC)
		if WindowsAt(first).Month == WindowsAt(first.Add(-time.Nanosecond)).Month {
			t.Fatalf("month boundary %s", first)
		}
	}
}
