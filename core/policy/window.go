package policy

import "time"

// Window is the half-open interval [Start, End) of one interval cap.
type Window struct {
	Start, End time.Time
}

// Contains reports whether t falls in the window.
func (w Window) Contains(t time.Time) bool {
	return !t.Before(w.Start) && t.Before(w.End)
}

// Windows are the intervals the daily, weekly and monthly caps count spend over.
type Windows struct {
	Daily, Weekly, Monthly Window
}

// WindowsAt returns the calendar windows containing t, in UTC: the day, the ISO week (Monday
// 00:00 to the next Monday) and the calendar month. These are docs/api.md's card windows (a UTC
// day, the ISO week, the calendar month), so every subject counts spend the same way, and a
// window is a fixed interval: two evaluations of one transaction at different times count the
// same spend (docs/policies.md, "Windows").
func WindowsAt(t time.Time) Windows {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	// Weekday counts from Sunday (0); ISO weeks start on Monday.
	sinceMonday := (int(day.Weekday()) + 6) % 7
	week := day.AddDate(0, 0, -sinceMonday)
	month := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return Windows{
		Daily:   Window{Start: day, End: day.AddDate(0, 0, 1)},
		Weekly:  Window{Start: week, End: week.AddDate(0, 0, 7)},
		Monthly: Window{Start: month, End: month.AddDate(0, 1, 0)},
	}
}

// Span is the smallest window holding all three; a store bounds its scan with it (an ISO
// week can straddle two months).
func (w Windows) Span() Window {
	s := w.Monthly
	if w.Weekly.Start.Before(s.Start) {
		s.Start = w.Weekly.Start
	}
	if w.Weekly.End.After(s.End) {
		s.End = w.Weekly.End
	}
	return s
}
