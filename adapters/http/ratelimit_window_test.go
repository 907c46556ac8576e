package http

import (
	"testing"
	"time"
)

// TestWindowLimiter_RollingMinute: five requests in a minute, then nothing until the oldest
// leaves the window, however long the caller waits inside it (a 5/min token bucket would let a
// sixth through after 12 s).
func TestWindowLimiter_RollingMinute(t *testing.T) {
	l := newWindowLimiter(5, time.Minute)
	t0 := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	for i := 0; i < 5; i++ {
		if ok, _ := l.allow("ip:a", at(time.Duration(i)*time.Second)); !ok {
			t.Fatalf("request %d refused", i+1)
		}
	}
	for _, d := range []time.Duration{4 * time.Second, 13 * time.Second, 59 * time.Second} {
		ok, wait := l.allow("ip:a", at(d))
		if ok || wait != time.Minute-d {
			t.Fatalf("at %v: allowed %v, wait %v; want refused until %v", d, ok, wait, time.Minute-d)
		}
	}
	if ok, _ := l.allow("ip:b", at(13*time.Second)); !ok {
		t.Fatal("another caller shares the budget")
	}
	// At 60 s the first request leaves the window: one more, then the next waits for the second.
	if ok, _ := l.allow("ip:a", at(time.Minute)); !ok {
		t.Fatal("refused once the oldest request left the window")
	}
	if ok, wait := l.allow("ip:a", at(time.Minute+500*time.Millisecond)); ok || wait != 500*time.Millisecond {
		t.Fatalf("allowed %v, wait %v; want refused for 500ms", ok, wait)
	}
	if got := len(l.seen["ip:a"]); got != 5 {
		t.Fatalf("kept %d times, want at most the limit", got)
	}
}
