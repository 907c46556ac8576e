package jobs

import (
	"context"
	"encoding/json"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/riverqueue/rivercontrib/otelriver"
	"go.opentelemetry.io/otel/propagation"
)

// newTracing is River's own OpenTelemetry middleware: a producer span for each enqueued batch
// ("river.insert_many") that writes its W3C trace context into every job's metadata, and a
// consumer span for each worked job ("river.work/<kind>") with the job's kind, id, attempt and
// outcome. Its tracer comes from the global provider, which delegates to one installed later.
func newTracing() *otelriver.Middleware {
	return otelriver.NewMiddleware(&otelriver.MiddlewareConfig{EnableTracePropagation: true, EnableWorkSpanJobKindSuffix: true})
}

// continueTrace runs before River's middleware and puts the enqueuer's trace context (the one
// otelriver wrote into the metadata) into the worker's context. otelriver alone only links the
// work span to its enqueuer, in a trace of its own; here a request and the jobs it enqueued
// stay one trace, which is what an operator follows from a request id to its chain calls.
// Periodic jobs carry none and start their own trace.
type continueTrace struct {
	river.MiddlewareDefaults
}

var _ rivertype.WorkerMiddleware = (*continueTrace)(nil)

// Work continues the trace in the job's metadata, if any, then runs the job. It reads with the
// W3C propagator itself, the one otelriver writes with, whatever the global propagator is.
func (continueTrace) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	return doInner(propagation.TraceContext{}.Extract(ctx, traceContextOf(job.Metadata)))
}

// traceContextOf reads the string fields of a job's metadata (otelriver writes traceparent and
// tracestate at its top level); an empty carrier when the metadata is not an object.
func traceContextOf(metadata []byte) propagation.MapCarrier {
	fields := map[string]any{}
	carrier := propagation.MapCarrier{}
	if len(metadata) == 0 || json.Unmarshal(metadata, &fields) != nil {
		return carrier
	}
	for k, v := range fields {
		if s, ok := v.(string); ok {
			carrier[k] = s
		}
	}
	return carrier
}
