package finance

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/ports"
)

// TestDailySeries: every day of the window is present, oldest first; rows of another asset or
// outside the window are left out.
func TestDailySeries(t *testing.T) {
	first := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	rows := []ports.DayVolume{
		{Day: first, Asset: "USD", In: 5, Transfers: 1},
		{Day: first.AddDate(0, 0, 2), Asset: "USD", Out: 7, Transfers: 2},
		{Day: first.AddDate(0, 0, 2), Asset: "EUR", In: 99},
		{Day: first.AddDate(0, 0, VolumeDays), Asset: "USD", In: 99},
	}
	v := dailySeries("USD", first, rows)
	if len(v.Days) != VolumeDays || !v.Days[0].Day.Equal(first) || !v.Days[VolumeDays-1].Day.Equal(first.AddDate(0, 0, VolumeDays-1)) {
		t.Fatalf("days: %d from %v", len(v.Days), v.Days[0].Day)
	}
	if v.Days[0].In != 5 || v.Days[1].In != 0 || v.Days[2].Out != 7 || v.Days[2].In != 0 {
		t.Fatalf("series: %+v", v.Days[:3])
	}
	var in int64
	for _, d := range v.Days {
		in += d.In
	}
	if in != 5 {
		t.Fatalf("rows outside the window or of another asset counted: in %d", in)
	}
}
