package treasury

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

func account(targets ...int) Account {
	a := Account{ID: "tra_1", Environment: core.EnvTest}
	for i, t := range targets {
		a.Buckets = append(a.Buckets, Bucket{ID: string(rune('a' + i)), TargetBps: t, Position: i})
	}
	return a
}

func readings(balances ...int64) []Reading {
	out := make([]Reading, len(balances))
	for i, b := range balances {
		out[i] = Reading{Readable: b >= 0, Balance: max(b, 0)}
	}
	return out
}

func ptr(v int64) *int64 { return &v }

func TestDailyYield(t *testing.T) {
	cases := []struct {
		balance int64
		apy     int
		want    int64
	}{
		{1000_000000, 450, 123287}, // 123287.67… rounded down
		{1000_000000, 0, 0},
		{0, 500, 0},
		{1, 10000, 0},
		{365, 10000, 1},
		{9_000_000_000_000_000_000, 10000, 24657534246575342}, // no overflow in the product
	}
	for _, c := range cases {
		if got := DailyYield(c.balance, c.apy); got != c.want {
			t.Errorf("DailyYield(%d, %d) = %d, want %d", c.balance, c.apy, got, c.want)
		}
	}
}

// TestDecide walks the rule semantics of docs/api.md row by row; -1 is an unreadable balance.
func TestDecide(t *testing.T) {
	a := account(5000, 3000, 2000)
	cases := []struct {
		name     string
		rule     Rule
		balances []int64
		want     Decision
	}{
		{"sweep: above threshold moves the excess", Rule{Type: RuleSweepExcess, SourceBucketID: "a", DestBucketID: "b", Threshold: ptr(40)}, []int64{100, 0, 0}, Decision{SourceID: "a", DestID: "b", Amount: 60}},
		{"sweep: at threshold nothing", Rule{Type: RuleSweepExcess, SourceBucketID: "a", DestBucketID: "b", Threshold: ptr(40)}, []int64{40, 0, 0}, Decision{SourceID: "a", DestID: "b"}},
		{"sweep: unreadable source skips", Rule{Type: RuleSweepExcess, SourceBucketID: "a", DestBucketID: "b", Threshold: ptr(40)}, []int64{-1, 0, 0}, Decision{Skip: SkipUnreadable}},
		{"sweep: unreadable dest skips", Rule{Type: RuleSweepExcess, SourceBucketID: "a", DestBucketID: "b", Threshold: ptr(40)}, []int64{100, -1, 0}, Decision{Skip: SkipUnreadable}},
		{"sweep: another bucket unreadable still decides", Rule{Type: RuleSweepExcess, SourceBucketID: "a", DestBucketID: "b", Threshold: ptr(40)}, []int64{100, 0, -1}, Decision{SourceID: "a", DestID: "b", Amount: 60}},
		{"top-up: below trigger refills to target", Rule{Type: RuleTopUp, SourceBucketID: "a", DestBucketID: "b", Target: ptr(50), Threshold: ptr(20)}, []int64{100, 10, 0}, Decision{SourceID: "a", DestID: "b", Amount: 40}},
		{"top-up: between trigger and target nothing", Rule{Type: RuleTopUp, SourceBucketID: "a", DestBucketID: "b", Target: ptr(50), Threshold: ptr(20)}, []int64{100, 30, 0}, Decision{SourceID: "a", DestID: "b"}},
		{"top-up: trigger defaults to target", Rule{Type: RuleTopUp, SourceBucketID: "a", DestBucketID: "b", Target: ptr(50)}, []int64{100, 30, 0}, Decision{SourceID: "a", DestID: "b", Amount: 20}},
		{"top-up: capped at the source", Rule{Type: RuleTopUp, SourceBucketID: "a", DestBucketID: "b", Target: ptr(50)}, []int64{5, 0, 0}, Decision{SourceID: "a", DestID: "b", Amount: 5}},
		{"rebalance: most over to most under", Rule{Type: RuleRebalanceToTarget}, []int64{100, 0, 0}, Decision{SourceID: "a", DestID: "b", Amount: 30}},
		{"rebalance: smaller gap", Rule{Type: RuleRebalanceToTarget}, []int64{0, 90, 10}, Decision{SourceID: "b", DestID: "a", Amount: 50}},
		{"rebalance: on target nothing", Rule{Type: RuleRebalanceToTarget}, []int64{50, 30, 20}, Decision{}},
		{"rebalance: below the minimum nothing", Rule{Type: RuleRebalanceToTarget, Threshold: ptr(31)}, []int64{100, 0, 0}, Decision{SourceID: "a", DestID: "b"}},
		{"rebalance: any unreadable skips", Rule{Type: RuleRebalanceToTarget}, []int64{100, 0, -1}, Decision{Skip: SkipUnreadable}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Decide(c.rule, a, readings(c.balances...)); got != c.want {
				t.Fatalf("Decide = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestBuildView(t *testing.T) {
	a := account(5000, 3000, 2000)
	v := BuildView(a, readings(40, 60, 0), map[string]int64{"c": 7})
	if v.Total == nil || *v.Total != 100 {
		t.Fatalf("total %v", v.Total)
	}
	wantDrift, wantBps := []int64{-10, 30, -20}, []int{-1000, 3000, -2000}
	for i, b := range v.Buckets {
		if *b.DriftBaseUnits != wantDrift[i] || *b.DriftBps != wantBps[i] {
			t.Errorf("bucket %d drift %d (%d bps)", i, *b.DriftBaseUnits, *b.DriftBps)
		}
	}
	if v.Buckets[2].AccruedYield != 7 {
		t.Errorf("accrued %d", v.Buckets[2].AccruedYield)
	}
	empty := BuildView(a, readings(0, 0, 0), nil)
	if *empty.Total != 0 || *empty.Buckets[0].DriftBaseUnits != 0 || *empty.Buckets[0].DriftBps != 0 {
		t.Errorf("an empty account has zero drift: %+v", empty.Buckets[0])
	}
	unknown := BuildView(a, readings(40, -1, 0), nil)
	if unknown.Total != nil || unknown.Buckets[1].Balance != nil || unknown.Buckets[0].DriftBaseUnits != nil || *unknown.Buckets[0].Balance != 40 {
		t.Errorf("with an unreadable bucket: %+v", unknown)
	}
}

func TestValidateBuckets(t *testing.T) {
	n := func(v int) *int { return &v }
	errs := core.FieldErrors{}
	ValidateBuckets([]BucketInput{{Name: "a", Kind: "operating", TargetBps: n(10000)}}, errs)
	if len(errs) != 0 {
		t.Fatalf("one bucket of 10000: %v", errs)
	}
	errs = core.FieldErrors{}
	ValidateBuckets([]BucketInput{{Name: "a", Kind: "OPERATING", TargetBps: n(9999)}}, errs)
	if errs["buckets"] == "" {
		t.Fatalf("9999 bps accepted")
	}
}

func TestRuleDue(t *testing.T) {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := Rule{IntervalSeconds: 3600, Enabled: true, CreatedAt: created}
	if r.Due(created.Add(59*time.Minute)) || !r.Due(created.Add(time.Hour)) {
		t.Fatal("first window ends one interval after creation")
	}
	r.Enabled = false
	if r.Due(created.Add(48 * time.Hour)) {
		t.Fatal("a disabled rule is due")
	}
}

// TestAccountNow_LargeOffsetDoesNotWrap: an account's simulated instant is its offset in
// calendar days after the wall clock, however large: past 106751 days a time.Duration
// overflowed and the simulated clock wrapped into the past.
func TestAccountNow_LargeOffsetDoesNotWrap(t *testing.T) {
	wall := time.Date(2026, 12, 7, 22, 0, 0, 0, time.UTC)
	for _, days := range []int{0, 1, MaxClockOffsetDays, 106752, 3_000_000} {
		got := Account{ClockOffsetDays: days}.Now(wall)
		if want := wall.AddDate(0, 0, days); !got.Equal(want) || got.Before(wall) {
			t.Fatalf("offset %d days: %s, want %s", days, got, want)
		}
	}
}
