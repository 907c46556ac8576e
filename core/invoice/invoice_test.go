package invoice

import (
	"testing"
	"time"
)

// TestInvoiceNow_LargeOffsetDoesNotWrap: an invoice's clock is the real time plus its offset,
// however large: past about 292 years a time.Duration overflowed and the clock wrapped.
func TestInvoiceNow_LargeOffsetDoesNotWrap(t *testing.T) {
	real := time.Date(2026, 12, 7, 22, 0, 0, 0, time.UTC)
	for _, secs := range []int64{0, 1, 86399, 86401, MaxClockOffsetSeconds, 9_300_000_000} {
		got := Invoice{ClockOffsetSeconds: secs}.Now(real)
		want := real.AddDate(0, 0, int(secs/86400)).Add(time.Duration(secs%86400) * time.Second)
		if !got.Equal(want) || got.Before(real) {
			t.Fatalf("offset %d s: %s, want %s", secs, got, want)
		}
	}
}
