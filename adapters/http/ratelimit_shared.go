package http

import (
	"context"
	"log/slog"
	"time"
)

// SharedLimits is where replicas keep the limits they share (RATE_LIMIT_STORE=postgres; the
// postgres adapter's SharedLimits). Nil in Config: every limit is counted in the process, which
// is right for one replica and lets N replicas allow N times the figure.
type SharedLimits interface {
	// TakeToken spends one token of key's bucket (perSecond refill, burst capacity), or
	// answers false with the wait until one is back.
	TakeToken(ctx context.Context, key string, perSecond float64, burst int) (bool, time.Duration, error)
	// TakeInWindow records a request of key if fewer than limit were made in the rolling
	// window, or answers false with the wait until the oldest leaves it.
	TakeInWindow(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error)
}

// callerLimiter decides whether one caller may proceed now, and if not how long to wait. The
// in-process limiters and the shared ones below are its kinds.
type callerLimiter interface {
	allow(id string, now time.Time) (bool, time.Duration)
}

var (
	_ callerLimiter = (*limiter)(nil)
	_ callerLimiter = (*windowLimiter)(nil)
	_ callerLimiter = (*sharedBucket)(nil)
	_ callerLimiter = (*sharedWindow)(nil)
)

// sharedDecisionTimeout bounds one shared limit decision unless Config.SharedLimitTimeout
// says otherwise. A limit is a guard, not a ledger: when the database cannot answer in time the
// request is judged by the process's own limiter instead (fail open to the per-replica
// figure), and the request's own work meets the same database right after.
const sharedDecisionTimeout = 250 * time.Millisecond

// sharedBucket is a token bucket every replica spends from; name keeps its keys apart from
// the other limits'.
type sharedBucket struct {
	name     string
	store    SharedLimits
	cfg      RateLimit
	timeout  time.Duration
	fallback *limiter
	log      *slog.Logger
}

func newSharedBucket(name string, store SharedLimits, cfg RateLimit, timeout time.Duration, log *slog.Logger) *sharedBucket {
	return &sharedBucket{name: name, store: store, cfg: cfg, timeout: timeout, fallback: newLimiter(cfg), log: log}
}

func (b *sharedBucket) allow(id string, now time.Time) (bool, time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	ok, wait, err := b.store.TakeToken(ctx, b.name+"|"+id, b.cfg.PerSecond, b.cfg.Burst)
	if err != nil {
		b.log.Warn("shared rate limit unavailable; limiting in this process", "limit", b.name, "error", err.Error())
		return b.fallback.allow(id, now)
	}
	return ok, wait
}

// sharedWindow is a rolling-window count every replica records in.
type sharedWindow struct {
	name     string
	store    SharedLimits
	limit    int
	window   time.Duration
	timeout  time.Duration
	fallback *windowLimiter
	log      *slog.Logger
}

func newSharedWindow(name string, store SharedLimits, limit int, window, timeout time.Duration, log *slog.Logger) *sharedWindow {
	return &sharedWindow{name: name, store: store, limit: limit, window: window, timeout: timeout,
		fallback: newWindowLimiter(limit, window), log: log}
}

func (w *sharedWindow) allow(id string, now time.Time) (bool, time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), w.timeout)
	defer cancel()
	ok, wait, err := w.store.TakeInWindow(ctx, w.name+"|"+id, w.limit, w.window)
	if err != nil {
		w.log.Warn("shared rate limit unavailable; limiting in this process", "limit", w.name, "error", err.Error())
		return w.fallback.allow(id, now)
	}
	return ok, wait
}

// newLimiters builds the server's three limits, shared when cfg.SharedLimits is set.
func newLimiters(cfg Config, log *slog.Logger) (general, claims, ephemeral callerLimiter) {
	if cfg.SharedLimits == nil {
		claims, ephemeral = newLimiter(cfg.ClaimLinkRateLimit), newWindowLimiter(ephemeralKeysPerMinute, time.Minute)
		if cfg.RateLimit.PerSecond > 0 {
			general = newLimiter(cfg.RateLimit)
		}
		return general, claims, ephemeral
	}
	timeout := cfg.SharedLimitTimeout
	if timeout <= 0 {
		timeout = sharedDecisionTimeout
	}
	claims = newSharedBucket("claim-link", cfg.SharedLimits, cfg.ClaimLinkRateLimit, timeout, log)
	ephemeral = newSharedWindow("ephemeral-key", cfg.SharedLimits, ephemeralKeysPerMinute, time.Minute, timeout, log)
	if cfg.RateLimit.PerSecond > 0 {
		general = newSharedBucket("general", cfg.SharedLimits, cfg.RateLimit, timeout, log)
	}
	return general, claims, ephemeral
}
