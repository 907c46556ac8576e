package policy

import (
	"testing"
	"time"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestWindowsAt(t *testing.T) {
	cases := []struct {
		name                             string
		at                               string
		day, week, weekEnd, month, after string
	}{
		{"a Wednesday mid-month", "2025-03-12T15:04:05Z",
			"2025-03-12T00:00:00Z", "2025-03-10T00:00:00Z", "2025-03-17T00:00:00Z", "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z"},
		{"Monday midnight starts the ISO week", "2025-03-10T00:00:00Z",
			"2025-03-10T00:00:00Z", "2025-03-10T00:00:00Z", "2025-03-17T00:00:00Z", "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z"},
		{"Sunday's last instant is still the week before", "2025-03-16T23:59:59.999999Z",
			"2025-03-16T00:00:00Z", "2025-03-10T00:00:00Z", "2025-03-17T00:00:00Z", "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z"},
		{"a week straddling two months", "2025-04-01T08:00:00Z",
			"2025-04-01T00:00:00Z", "2025-03-31T00:00:00Z", "2025-04-07T00:00:00Z", "2025-04-01T00:00:00Z", "2025-05-01T00:00:00Z"},
		{"a week straddling two years", "2027-01-01T12:00:00Z",
			"2027-01-01T00:00:00Z", "2026-12-28T00:00:00Z", "2027-01-04T00:00:00Z", "2027-01-01T00:00:00Z", "2027-02-01T00:00:00Z"},
		{"leap day", "2028-02-29T23:00:00Z",
			"2028-02-29T00:00:00Z", "2028-02-28T00:00:00Z", "2028-03-06T00:00:00Z", "2028-02-01T00:00:00Z", "2028-03-01T00:00:00Z"},
		{"a non-UTC instant is judged in UTC", "2025-03-12T23:30:00-05:00",
			"2025-03-13T00:00:00Z", "2025-03-10T00:00:00Z", "2025-03-17T00:00:00Z", "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			at := utc(c.at)
			w := WindowsAt(at)
			want := Windows{
				Daily:   Window{utc(c.day), utc(c.day).AddDate(0, 0, 1)},
				Weekly:  Window{utc(c.week), utc(c.weekEnd)},
				Monthly: Window{utc(c.month), utc(c.after)},
			}
			if !w.Daily.Start.Equal(want.Daily.Start) || !w.Daily.End.Equal(want.Daily.End) ||
				!w.Weekly.Start.Equal(want.Weekly.Start) || !w.Weekly.End.Equal(want.Weekly.End) ||
				!w.Monthly.Start.Equal(want.Monthly.Start) || !w.Monthly.End.Equal(want.Monthly.End) {
				t.Fatalf("WindowsAt(%s) = %+v, want %+v", c.at, w, want)
			}
			for _, win := range []Window{w.Daily, w.Weekly, w.Monthly} {
				if !win.Contains(at) || win.Start.Location() != time.UTC {
					t.Fatalf("%+v does not contain %s in UTC", win, c.at)
				}
			}
		})
	}
}

func TestWindow_ContainsIsHalfOpen(t *testing.T) {
	w := WindowsAt(utc("2025-03-12T10:00:00Z")).Daily
	if !w.Contains(w.Start) || w.Contains(w.End) || w.Contains(w.Start.Add(-time.Nanosecond)) || !w.Contains(w.End.Add(-time.Nanosecond)) {
		t.Fatalf("window %+v is not [start, end)", w)
	}
}

func TestWindows_Span(t *testing.T) {
	cases := []struct{ at, start, end string }{
		{"2025-03-12T10:00:00Z", "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z"}, // the month holds the week
		{"2025-04-01T10:00:00Z", "2025-03-31T00:00:00Z", "2025-05-01T00:00:00Z"}, // the week starts in March
		{"2025-03-31T10:00:00Z", "2025-03-01T00:00:00Z", "2025-04-07T00:00:00Z"}, // the week ends in April
	}
	for _, c := range cases {
		s := WindowsAt(utc(c.at)).Span()
		if !s.Start.Equal(utc(c.start)) || !s.End.Equal(utc(c.end)) {
			t.Fatalf("span at %s = %+v, want [%s, %s)", c.at, s, c.start, c.end)
		}
	}
}

// TestEvaluateCumulative_ServiceBalance is the off-ramp composer's use: no card limits, no MCC
// or counterparty, the window spend plus the amount against each cap (inclusive).
func TestEvaluateCumulative_ServiceBalance(t *testing.T) {
	ir := mustCompile(t, `{"schemaVersion":1,"limits":{"perTransactionUsd":"50","dailyUsd":"100","weeklyUsd":"300","monthlyUsd":"500"},
		"mcc":{"allowed":["5812"]},"counterparties":{"allowed":["`+addrB+`"]}}`)
	cases := []struct {
		name   string
		amount int64
		spent  Spend
		reason string
	}{
		{"empty windows", usd(50), Spend{}, ReasonAllowed},
		{"daily cap reached exactly", usd(40), Spend{Daily: usd(60), Weekly: usd(60), Monthly: usd(60)}, ReasonAllowed},
		{"daily cap passed", usd(40), Spend{Daily: usd(61), Weekly: usd(61), Monthly: usd(61)}, CodeDailyCap},
		{"weekly cap passed", usd(10), Spend{Daily: 0, Weekly: usd(295), Monthly: usd(295)}, CodeWeeklyCap},
		{"monthly cap passed", usd(10), Spend{Monthly: usd(495)}, CodeMonthlyCap},
		{"per-transaction first", usd(51), Spend{Daily: usd(100)}, CodePerTxnLimit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := EvaluateCumulative(&ir, CardLimits{}, Transaction{AmountBaseUnits: c.amount}, c.spent)
			if v.Reason != c.reason || v.Allow != (c.reason == ReasonAllowed) {
				t.Fatalf("verdict %+v, want %s", v, c.reason)
			}
			for _, e := range v.Trace[:4] {
				if e.Result != ResultSkip {
					t.Fatalf("list rules must skip without MCC or counterparty: %+v", v.Trace)
				}
			}
		})
	}
}
