package postgres

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/corridorhq/corridor/adapters/tracing"
)

// traceHook gives every Bun statement a client span under the span of the request or job that
// runs it. It records the operation, never the statement: Bun inlines arguments into the text,
// and those may be key hashes or sealed identifiers that no trace backend should hold.
type traceHook struct{}

var _ bun.QueryHook = traceHook{}

// traceSpanKey keeps the statement's span in the event between the two hook calls.
type traceSpanKey struct{}

// BeforeQuery starts the statement's span and returns ctx unchanged: a statement has no
// children, and Bun keeps the context its BEGIN hook returned for the whole transaction, which
// would hang the unit's later statements (and the jobs it enqueues) under the BEGIN.
func (traceHook) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	operation := e.Operation()
	_, span := tracing.Tracer().Start(ctx, "db "+operation, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system", "postgresql"), attribute.String("db.operation.name", operation)))
	if e.Stash == nil {
		e.Stash = map[any]any{}
	}
	e.Stash[traceSpanKey{}] = span
	return ctx
}

// AfterQuery ends the span, marking a failed statement as an error (no row found is an
// answer, not a failure).
func (traceHook) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	span, ok := e.Stash[traceSpanKey{}].(trace.Span)
	if !ok {
		return
	}
	if e.Err != nil && !errors.Is(e.Err, sql.ErrNoRows) {
		span.SetStatus(codes.Error, "statement failed")
		span.RecordError(e.Err)
	}
	span.End()
}
