package http

import (
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/corridorhq/corridor/adapters/tracing"
)

// traceRequest starts the request's server span (the parent of its statements, chain calls
// and enqueued jobs), continuing a caller's W3C traceparent when one is sent. It is named by
// the route pattern once routing is known, and carries the request id and, once authenticated,
// the tenant and environment. It runs outside observe, so the status it records is the final
// one, errors rendered included.
//
// With no exporter (the global provider is OpenTelemetry's no-op one) the span records nothing:
// its name and attributes are only built for a span that records, so an untraced request pays
// the propagator's header reads and the no-op span, nothing more. No sampler this service can
// be configured with (OTEL_TRACES_SAMPLER) reads a span's start attributes.
func (s *Server) traceRequest(c *fiber.Ctx) error {
	parent := otel.GetTextMapPropagator().Extract(c.UserContext(), fiberCarrier{c})
	ctx, span := tracing.Tracer().Start(parent, "HTTP", serverSpan)
	defer span.End()
	if span.IsRecording() {
		span.SetName("HTTP " + c.Method())
		span.SetAttributes(attribute.String("http.request.method", c.Method()), attribute.String("corridor.request_id", requestID(c)))
	}
	c.SetUserContext(ctx)
	err := c.Next()
	if !span.IsRecording() {
		return err
	}
	route := endpointOf(c)
	status := c.Response().StatusCode()
	span.SetName(c.Method() + " " + route)
	span.SetAttributes(attribute.String("http.route", route), attribute.Int("http.response.status_code", status))
	if p, ok := principalOf(c); ok {
		span.SetAttributes(attribute.String("corridor.tenant_id", p.TenantID), attribute.String("corridor.environment", string(p.Environment)))
	}
	if status >= 500 {
		span.SetStatus(codes.Error, utils.StatusMessage(status))
	}
	return err
}

// serverSpan is the option every request's span starts with.
var serverSpan = trace.WithSpanKind(trace.SpanKindServer)

// fiberCarrier reads and writes trace headers of a Fiber request.
type fiberCarrier struct{ c *fiber.Ctx }

func (f fiberCarrier) Get(key string) string { return f.c.Get(key) }

func (f fiberCarrier) Set(key, value string) { f.c.Request().Header.Set(key, value) }

func (f fiberCarrier) Keys() []string {
	var keys []string
	f.c.Request().Header.VisitAll(func(k, _ []byte) { keys = append(keys, string(k)) })
	return keys
}
