package console

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/time/rate"
)

// DefaultSignInsPerMinute is how many sign-in attempts one client address may make per minute
// on each sign-in form (members', operator's) unless configured otherwise.
const DefaultSignInsPerMinute = 10

// maxThrottled bounds the addresses the throttle remembers; idle ones are swept past it.
const maxThrottled = 50_000

// SharedLimits is the database's rate limiter every replica counts against (the postgres
// adapter's SharedLimits, whose token buckets the API's cluster-wide limits use too).
type SharedLimits interface {
	// TakeToken spends one token of key's bucket (perSecond refill, burst capacity), or
	// answers false with the wait until one is back.
	TakeToken(ctx context.Context, key string, perSecond float64, burst int) (bool, time.Duration, error)
}

// signInThrottle limits sign-in attempts per client address and form: a pasted session token or
// the operator token is a secret a stranger could otherwise try at the speed of the network.
// The address is c.IP(), which honours TRUSTED_PROXIES only. With shared limits (every
// deployment's wiring gives them) the budget is one for all replicas, so N replicas do not let
// a guesser try N times as fast; the process's own buckets count only when the database
// cannot answer, so a database outage neither opens the form nor locks everyone out.
type signInThrottle struct {
	perMinute int
	shared    SharedLimits
	onShared  func(error)
	mu        sync.Mutex
	buckets   map[string]*throttleBucket
}

type throttleBucket struct {
	lim      *rate.Limiter
	lastSeen time.Time
}

func newSignInThrottle(perMinute int, shared SharedLimits, onShared func(error)) *signInThrottle {
	if perMinute <= 0 {
		perMinute = DefaultSignInsPerMinute
	}
	return &signInThrottle{perMinute: perMinute, shared: shared, onShared: onShared, buckets: map[string]*throttleBucket{}}
}

// allowShared decides key in the shared store, falling back to the process's own buckets when
// the store fails (the failure is reported to onShared).
func (s *signInThrottle) allowShared(ctx context.Context, key string, now time.Time) (bool, time.Duration) {
	if s.shared != nil {
		// The budget is part of the key: replicas share one configuration, and a row is never
		// read at two rates.
		ok, wait, err := s.shared.TakeToken(ctx, "console-signin:"+strconv.Itoa(s.perMinute)+":"+key, float64(s.perMinute)/60, s.perMinute)
		if err == nil {
			return ok, wait
		}
		if s.onShared != nil {
			s.onShared(err)
		}
	}
	return s.allow(key, now)
}

// allow reports whether key may try now in the process's own buckets, and if not how long
// until it may.
func (s *signInThrottle) allow(key string, now time.Time) (bool, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.buckets[key]
	if !ok {
		if len(s.buckets) >= maxThrottled {
			for k, old := range s.buckets {
				if now.Sub(old.lastSeen) > time.Minute {
					delete(s.buckets, k)
				}
			}
		}
		b = &throttleBucket{lim: rate.NewLimiter(rate.Every(time.Minute/time.Duration(s.perMinute)), s.perMinute)}
		s.buckets[key] = b
	}
	b.lastSeen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// throttled is middleware for a sign-in form's POST: past the budget it answers 429 with
// Retry-After and a page that says so, before the token is looked at.
func (k *Console) throttled(form string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ok, wait := k.throttle.allowShared(c.UserContext(), form+"|"+c.IP(), time.Now())
		if ok {
			return c.Next()
		}
		secs := int((wait + time.Second - 1) / time.Second)
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(max(secs, 1)))
		k.log.Warn("console: sign-in throttled", "form", form, "ip", c.IP())
		return k.renderError(c, fiber.StatusTooManyRequests, "Too many sign-in attempts from this address: wait a minute and try again.")
	}
}
