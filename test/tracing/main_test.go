// Package tracing checks the service's OpenTelemetry spans end to end: a request's server span
// continues the caller's trace, its statements are its children, the job it enqueues continues
// it, and that job's chain calls are the job's children. Spans go to an in-memory recorder.
package tracing

import (
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/corridorhq/corridor/test/harness"
)

// recorder holds every span the package's service ends.
var recorder = tracetest.NewSpanRecorder()

func TestMain(m *testing.M) {
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder)))
	otel.SetTextMapPropagator(propagation.TraceContext{})
	harness.MainWithChain(m)
}
