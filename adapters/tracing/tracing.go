// Package tracing sets up OpenTelemetry tracing from the standard OTEL_* variables and holds
// the helpers the adapters share (HTTP, the database, River jobs, chain calls each start their
// own spans through the global tracer provider). With no exporter configured, tracing is off:
// the global provider stays OpenTelemetry's no-op one and spans cost next to nothing.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
)

// InstrumentationName names the tracer every adapter of this service uses.
const InstrumentationName = "corridor"

// Tracer is the service's tracer from the global provider, looked up at each use so that a
// provider installed later (Setup, or a test's recorder) takes effect everywhere.
func Tracer() trace.Tracer { return otel.Tracer(InstrumentationName) }

// Enabled reports whether the environment asks for OTLP export: an OTLP endpoint is set
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), or OTEL_TRACES_EXPORTER
// is otlp; never while OTEL_SDK_DISABLED is true or OTEL_TRACES_EXPORTER is none.
func Enabled(getenv func(string) string) bool {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return false
	}
	switch strings.ToLower(getenv("OTEL_TRACES_EXPORTER")) {
	case "none":
		return false
	case "otlp":
		return true
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup installs the W3C trace-context propagator and, when Enabled, a tracer provider that
// batches spans to the OTLP/HTTP exporter. The exporter, the sampler and the resource read the
// standard variables themselves (OTEL_EXPORTER_OTLP_*, OTEL_TRACES_SAMPLER[_ARG],
// OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES). shutdown flushes the spans still buffered.
func Setup(ctx context.Context, serviceVersion string) (shutdown func(context.Context) error, err error) {
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	if !Enabled(os.Getenv) {
		return func(context.Context) error { return nil }, nil
	}
	if p := strings.ToLower(os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")); p != "" && p != "http/protobuf" {
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL: %q is not supported; this build exports http/protobuf", p)
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("tracing: OTLP exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName("corridor"), semconv.ServiceVersion(serviceVersion)))
	if err != nil {
		return nil, fmt.Errorf("tracing: resource: %w", err)
	}
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override the defaults above.
	if fromEnv, envErr := resource.New(ctx, resource.WithFromEnv()); envErr == nil {
		if merged, mergeErr := resource.Merge(res, fromEnv); mergeErr == nil {
			res = merged
		}
	}
	provider := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	otel.SetTracerProvider(provider)
	return func(ctx context.Context) error { return errors.Join(provider.ForceFlush(ctx), provider.Shutdown(ctx)) }, nil
}
