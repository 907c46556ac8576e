package console

import (
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

// signInThrottle limits sign-in attempts per client address and form: a pasted session token or
// the operator token is a secret a stranger could otherwise try at the speed of the network.
// The address is c.IP(), which honours TRUSTED_PROXIES only. Each replica counts on its own.
type signInThrottle struct {
	perMinute int
	mu        sync.Mutex
	buckets   map[string]*throttleBucket
}

type throttleBucket struct {
	lim      *rate.Limiter
	lastSeen time.Time
}

func newSignInThrottle(perMinute int) *signInThrottle {
	if perMinute <= 0 {
		perMinute = DefaultSignInsPerMinute
	}
	return &signInThrottle{perMinute: perMinute, buckets: map[string]*throttleBucket{}}
}

// allow reports whether key may try now, and if not how long until it may.
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
		ok, wait := k.throttle.allow(form+"|"+c.IP(), time.Now())
		if ok {
			return c.Next()
		}
		secs := int((wait + time.Second - 1) / time.Second)
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(max(secs, 1)))
		k.log.Warn("console: sign-in throttled", "form", form, "ip", c.IP())
		return k.renderError(c, fiber.StatusTooManyRequests, "Too many sign-in attempts from this address: wait a minute and try again.")
	}
}
