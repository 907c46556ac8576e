package http

import (
	"sync"
	"time"
)

// windowLimiter allows at most limit requests per caller in any rolling window: it keeps the
// times of the caller's last limit requests, so a refusal's wait is exactly until the oldest
// leaves the window. A token bucket of the same rate lets a burst through and then one more per
// refill period, more than limit in a minute; docs/api.md's "5 per minute per IP" is a count over a
// rolling minute. Each replica counts on its own, like the general limiter.
type windowLimiter struct {
	limit  int
	window time.Duration
	mu     sync.Mutex
	seen   map[string][]time.Time
}

func newWindowLimiter(limit int, window time.Duration) *windowLimiter {
	if limit <= 0 || window <= 0 {
		panic("http: a window limiter needs a positive limit and window")
	}
	return &windowLimiter{limit: limit, window: window, seen: map[string][]time.Time{}}
}

// allow records the request at now and reports true when the caller made fewer than limit
// requests in the window before it; otherwise it records nothing and returns the wait until
// the oldest of them leaves the window.
func (l *windowLimiter) allow(id string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.seen[id]; !ok && len(l.seen) >= maxLimiters {
		l.sweep(now)
	}
	times := inWindow(l.seen[id], now.Add(-l.window))
	if len(times) >= l.limit {
		l.seen[id] = times
		return false, times[0].Add(l.window).Sub(now)
	}
	l.seen[id] = append(times, now)
	return true, 0
}

// inWindow drops the times at or before since (times are in the order they were recorded).
func inWindow(times []time.Time, since time.Time) []time.Time {
	i := 0
	for i < len(times) && !times[i].After(since) {
		i++
	}
	return times[i:]
}

// sweep forgets callers with nothing left in the window.
func (l *windowLimiter) sweep(now time.Time) {
	for id, times := range l.seen {
		if len(inWindow(times, now.Add(-l.window))) == 0 {
			delete(l.seen, id)
		}
	}
}
