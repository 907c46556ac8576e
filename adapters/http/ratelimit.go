package http

import (
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/time/rate"

	"github.com/corridorhq/corridor/core"
)

// RateLimit configures the general per-credential limit (per client IP when anonymous).
type RateLimit struct {
	PerSecond float64
	Burst     int
}

// maxLimiters bounds memory: idle limiters are swept when the map grows past it.
const maxLimiters = 100_000

// limiter is an in-process token bucket per caller. Each replica limits on its own; the
// figure is a guard against runaway clients, not a billing quota.
type limiter struct {
	cfg     RateLimit
	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	lim      *rate.Limiter
	lastSeen time.Time
}

func newLimiter(cfg RateLimit) *limiter {
	return &limiter{cfg: cfg, buckets: map[string]*bucket{}}
}

// allow reports whether the caller may proceed, and if not how long to wait.
func (l *limiter) allow(id string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[id]
	if !ok {
		if len(l.buckets) >= maxLimiters {
			l.sweep(now)
		}
		b = &bucket{lim: rate.NewLimiter(rate.Limit(l.cfg.PerSecond), l.cfg.Burst)}
		l.buckets[id] = b
	}
	b.lastSeen = now
	r := b.lim.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Second
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

func (l *limiter) sweep(now time.Time) {
	for id, b := range l.buckets {
		if now.Sub(b.lastSeen) > time.Minute {
			delete(l.buckets, id)
		}
	}
}

// rateLimit answers 429 RATE_LIMITED with Retry-After once an authenticated caller exceeds its
// bucket; anonymous callers were charged per IP by authenticate.
func (s *Server) rateLimit(c *fiber.Ctx) error {
	p, ok := principalOf(c)
	if s.limiter == nil || !ok {
		return c.Next()
	}
	if err := s.charge(c, p.LogID()); err != nil {
		return err
	}
	return c.Next()
}

// limitAnonymous charges the client IP's bucket for a request without valid credentials.
func (s *Server) limitAnonymous(c *fiber.Ctx) error {
	if s.limiter == nil {
		return nil
	}
	return s.charge(c, "ip:"+c.IP())
}

func (s *Server) charge(c *fiber.Ctx, id string) error {
	ok, wait := s.limiter.allow(id, time.Now())
	if ok {
		return nil
	}
	c.Set(fiber.HeaderRetryAfter, retryAfter(wait))
	return (&core.Error{Code: core.CodeRateLimited, Message: "too many requests; retry after the Retry-After seconds"}).
		WithDetails(map[string]any{"retryAfterSeconds": retryAfter(wait)})
}
