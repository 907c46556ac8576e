package twofactor

import (
	"testing"
	"time"
)

func TestBudget_LocksOnTheTenthFailureWithinTheWindow(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var b Budget
	for i := 0; i < FailureBudget-1; i++ {
		if b.Fail(start.Add(time.Duration(i) * time.Minute)) {
			t.Fatalf("locked after %d failures", i+1)
		}
	}
	now := start.Add(10 * time.Minute)
	if _, locked := b.Locked(now); locked {
		t.Fatal("locked before the budget is spent")
	}
	if !b.Fail(now) {
		t.Fatal("the tenth failure within the window did not lock")
	}
	if wait, locked := b.Locked(now); !locked || wait != LockoutDuration {
		t.Fatalf("locked=%v for %s, want %s", locked, wait, LockoutDuration)
	}
	if _, locked := b.Locked(now.Add(LockoutDuration)); locked {
		t.Fatal("still locked after the lockout")
	}
	if e := LockedError(b, now.Add(time.Minute)); e.Details["retryAfterSeconds"] != 14*60 {
		t.Fatalf("retryAfterSeconds %v", e.Details["retryAfterSeconds"])
	}
}

func TestBudget_ForgetsFailuresOutsideTheWindow(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	var b Budget
	for i := 0; i < 30; i++ {
		// One failure every two minutes: at most eight fall in any fifteen minutes.
		if b.Fail(start.Add(time.Duration(i) * 2 * time.Minute)) {
			t.Fatalf("locked at failure %d although never ten within %s", i+1, FailureWindow)
		}
	}
	if len(b.Failures) >= FailureBudget {
		t.Fatalf("kept %d failures", len(b.Failures))
	}
}
