package chain

import (
	"context"
	"runtime"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/corridorhq/corridor/adapters/tracing"
)

// WithTracing wraps a node client so that every call is a client span ("chain BlockNumber",
// "chain SendTransaction", …) under the span of the request or job that makes it. The span
// names the call only: no URL (providers keep API keys in it), no arguments.
func WithTracing(c Client) Client { return wrappedClient{c: c, run: traceCall} }

// traceCall runs one call inside a span named after the wrappedClient method that called it.
func traceCall(ctx context.Context, call func(context.Context) error) error {
	method := callerMethod()
	ctx, span := tracing.Tracer().Start(ctx, "chain "+method, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("rpc.system", "jsonrpc"), attribute.String("rpc.method", method)))
	defer span.End()
	err := call(ctx)
	if err != nil {
		span.SetStatus(codes.Error, "chain call failed")
		span.RecordError(err)
	}
	return err
}

// callerMethod is the name of the method two frames up (wrappedClient.BlockNumber → BlockNumber):
// the wrapper's methods all share traceCall, and the stack is the one place that tells them apart.
func callerMethod() string {
	pc, _, _, ok := runtime.Caller(2)
	if !ok {
		return "call"
	}
	fn := runtime.FuncForPC(pc)
	if fn == nil {
		return "call"
	}
	name := fn.Name()
	return name[strings.LastIndexByte(name, '.')+1:]
}
