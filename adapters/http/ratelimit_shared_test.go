package http

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// slowShared is a shared store that answers "refused" only when released, and otherwise waits
// for its caller's deadline, as a database that cannot answer in time does.
type slowShared struct {
	entered chan struct{}
	release chan struct{}
}

func (s slowShared) answer(ctx context.Context) (bool, time.Duration, error) {
	select {
	case s.entered <- struct{}{}:
	default:
	}
	select {
	case <-s.release:
		return false, time.Second, nil
	case <-ctx.Done():
		return false, 0, ctx.Err()
	}
}

func (s slowShared) TakeToken(ctx context.Context, _ string, _ float64, _ int) (bool, time.Duration, error) {
	return s.answer(ctx)
}

func (s slowShared) TakeInWindow(ctx context.Context, _ string, _ int, _ time.Duration) (bool, time.Duration, error) {
	return s.answer(ctx)
}

// TestSharedLimits_DecisionTimeout: a shared decision the database does not answer within its
// bound falls back to this process's own count (here: allowed), and Config.SharedLimitTimeout
// moves that bound, so a slower answer is still the shared one (here: refused).
func TestSharedLimits_DecisionTimeout(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	limits := func(timeout time.Duration) (callerLimiter, callerLimiter, slowShared) {
		store := slowShared{entered: make(chan struct{}, 1), release: make(chan struct{})}
		general, _, ephemeral := newLimiters(Config{SharedLimits: store, SharedLimitTimeout: timeout,
			RateLimit: RateLimit{PerSecond: 10, Burst: 10}}, log)
		return general, ephemeral, store
	}

	general, ephemeral, _ := limits(0) // the default bound; nobody releases the store
	for name, l := range map[string]callerLimiter{"general": general, "ephemeral-key": ephemeral} {
		if ok, _ := l.allow("caller", time.Now()); !ok {
			t.Errorf("%s: a decision the database never answered refused the request; want this process's count (allowed)", name)
		}
	}

	general, ephemeral, store := limits(time.Hour)
	for name, l := range map[string]callerLimiter{"general": general, "ephemeral-key": ephemeral} {
		// The answer comes later than the default bound: only the configured one waits for it.
		go func() { <-store.entered; time.Sleep(2 * sharedDecisionTimeout); store.release <- struct{}{} }()
		if ok, _ := l.allow("caller", time.Now()); ok {
			t.Errorf("%s: the shared answer (refused) came within SharedLimitTimeout but the request was allowed", name)
		}
	}
}
