package jobs

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/corridorhq/corridor/adapters/tracing"
)

// traceMetadataKey is the job metadata field that carries the enqueuing span's W3C trace
// context (traceparent, tracestate) to the worker.
const traceMetadataKey = "otel"

// traceInsert writes the enqueuing span's trace context into each job's metadata, so the job's
// span continues the request (or job) that enqueued it. Periodic jobs carry none and start
// their own trace.
type traceInsert struct {
	river.MiddlewareDefaults
}

var _ rivertype.JobInsertMiddleware = (*traceInsert)(nil)

// InsertMany adds the trace context to every job of the batch, then inserts.
func (traceInsert) InsertMany(ctx context.Context, params []*rivertype.JobInsertParams, doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	carrier := propagation.MapCarrier{}
	otel.GetTextMapPropagator().Inject(ctx, carrier)
	if len(carrier) > 0 {
		for _, p := range params {
			p.Metadata = withTraceContext(p.Metadata, carrier)
		}
	}
	return doInner(ctx)
}

// withTraceContext sets the trace field of a job's metadata object, keeping the others.
func withTraceContext(metadata []byte, carrier propagation.MapCarrier) []byte {
	fields := map[string]any{}
	if len(metadata) > 0 {
		if err := json.Unmarshal(metadata, &fields); err != nil {
			return metadata // not an object: leave it as River wrote it
		}
	}
	fields[traceMetadataKey] = map[string]string(carrier)
	out, err := json.Marshal(fields)
	if err != nil {
		return metadata
	}
	return out
}

// traceWork gives every worked job a consumer span, the parent of its statements and chain
// calls, continuing the trace its enqueuer left in the metadata.
type traceWork struct {
	river.MiddlewareDefaults
}

var _ rivertype.WorkerMiddleware = (*traceWork)(nil)

// Work runs the job inside its span; a failure (not a snooze) marks the span as an error.
func (traceWork) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	ctx = otel.GetTextMapPropagator().Extract(ctx, traceContextOf(job.Metadata))
	ctx, span := tracing.Tracer().Start(ctx, "job "+job.Kind, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.String("corridor.job.kind", job.Kind), attribute.String("corridor.job.id", strconv.FormatInt(job.ID, 10)),
			attribute.Int("corridor.job.attempt", job.Attempt)))
	defer span.End()
	err := doInner(ctx)
	span.SetAttributes(attribute.String("corridor.job.outcome", outcomeOf(err)))
	if outcomeOf(err) == outcomeFailed {
		span.SetStatus(codes.Error, "job failed")
		span.RecordError(err)
	}
	return err
}

// traceContextOf reads the carrier traceInsert wrote; an empty one when there is none.
func traceContextOf(metadata []byte) propagation.MapCarrier {
	var fields struct {
		Trace map[string]string `json:"otel"`
	}
	if len(metadata) == 0 || json.Unmarshal(metadata, &fields) != nil || fields.Trace == nil {
		return propagation.MapCarrier{}
	}
	return propagation.MapCarrier(fields.Trace)
}
