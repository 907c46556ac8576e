package card

import (
	"fmt"
	"time"
)

// Windows are the keys of the three spend windows an instant falls in, in UTC: the day
// ("2026-03-01"), the ISO week starting Monday ("2026-W09", the ISO year may differ from the
// calendar year around New Year) and the calendar month ("2026-03"). An authorization records
// the keys it consumed, so a reversal credits the original windows, not the current ones.
type Windows struct {
	Day, Week, Month string
}

// WindowsAt returns the window keys of t.
func WindowsAt(t time.Time) Windows {
	t = t.UTC()
	year, week := t.ISOWeek()
	return Windows{
		Day:   t.Format("2006-01-02"),
		Week:  fmt.Sprintf("%04d-W%02d", year, week),
		Month: t.Format("2006-01"),
	}
}

// Spend is what a card has consumed in its current windows (base units).
type Spend struct {
	Daily, Weekly, Monthly int64
}
