package postgres

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/extra/bunotel"
)

// newTraceHook is Bun's own OpenTelemetry hook (bunotel): a client span per statement named
// "db <operation>" under the span of the request or job that runs it, with the statement's
// template (placeholders, never the arguments: Bun would inline key hashes and sealed
// identifiers into a formatted statement) and the call site.
func newTraceHook() bun.QueryHook {
	return keepCaller{inner: bunotel.NewQueryHook(bunotel.WithFormattedQueries(false),
		bunotel.WithSpanNameQueryGen(func(e *bun.QueryEvent) string { return "db " + e.Operation() }))}
}

// keepCaller runs bunotel's hook but hands Bun back the caller's context. Bun keeps the context
// its BEGIN hook returned for the whole transaction (RunInTx passes it to the unit of work), so
// with bunotel alone every statement of a unit, and the jobs it enqueues, would hang under the
// BEGIN's span instead of the request's or job's.
type keepCaller struct{ inner *bunotel.QueryHook }

var _ bun.QueryHook = keepCaller{}

// statementContextKey keeps the statement's own context, holding its span, between the calls.
type statementContextKey struct{}

// BeforeQuery starts the statement's span and returns ctx unchanged (a statement has no children).
func (h keepCaller) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if e.Stash == nil {
		e.Stash = map[any]any{}
	}
	e.Stash[statementContextKey{}] = h.inner.BeforeQuery(ctx, e)
	return ctx
}

// AfterQuery ends the statement's span, through the context BeforeQuery stashed.
func (h keepCaller) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if ctx, ok := e.Stash[statementContextKey{}].(context.Context); ok {
		h.inner.AfterQuery(ctx, e)
	}
}
