package kernel

import (
	"context"
	"sync"
)

// Prepared answers are what a use case learned from outside the process while preparing (a
// screening verdict), kept for its unit of work to decide with. The runner gives every request
// one set before it prepares; a use case run outside the runner (a job, an operator's action)
// opens its own with WithPrepared. The unit only recalls: an answer it needs and nobody
// prepared is a decision the capability makes (screening fails closed), never a call from
// inside the transaction and never a rollback to go and ask.

type preparedKey struct{}

// prepared is one request's answers, keyed by what each answer depends on (nil until the first).
type prepared struct {
	mu      sync.Mutex
	answers map[string]any
}

// WithPrepared returns ctx with an empty set of prepared answers, or ctx itself when it already
// carries one (a use case prepared inside the runner shares the runner's set).
func WithPrepared(ctx context.Context) context.Context {
	if _, ok := ctx.Value(preparedKey{}).(*prepared); ok {
		return ctx
	}
	return context.WithValue(ctx, preparedKey{}, &prepared{})
}

// Remember keeps an answer learned while preparing; without a set (ctx not from WithPrepared)
// it is dropped, and the unit of work finds nothing.
func Remember(ctx context.Context, key string, answer any) {
	if set, ok := ctx.Value(preparedKey{}).(*prepared); ok {
		set.mu.Lock()
		if set.answers == nil { // most requests prepare nothing: the map is made for the first answer
			set.answers = map[string]any{}
		}
		set.answers[key] = answer
		set.mu.Unlock()
	}
}

// Recall returns the answer prepared under key, if one was.
func Recall[T any](ctx context.Context, key string) (T, bool) {
	var zero T
	set, ok := ctx.Value(preparedKey{}).(*prepared)
	if !ok {
		return zero, false
	}
	set.mu.Lock()
	answer, found := set.answers[key]
	set.mu.Unlock()
	value, ok := answer.(T)
	if !found || !ok {
		return zero, false
	}
	return value, true
}
