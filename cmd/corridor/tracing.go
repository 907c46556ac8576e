package main

import (
	"context"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"github.com/corridorhq/corridor/adapters/tracing"
)

// startTracing sets up OpenTelemetry from the OTEL_* variables (off unless an OTLP endpoint or
// OTEL_TRACES_EXPORTER=otlp is set) and returns the function that flushes buffered spans at
// shutdown, within 5 s.
func startTracing(ctx context.Context, log *slog.Logger) (stop func(), err error) {
	shutdown, err := tracing.Setup(ctx, buildVersion())
	if err != nil {
		return nil, err
	}
	if tracing.Enabled(os.Getenv) {
		log.Info("tracing: exporting spans over OTLP/HTTP (OTEL_* variables)")
	}
	return func() {
		flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(flushCtx); err != nil {
			log.Warn("tracing: flushing spans at shutdown failed", "error", err.Error())
		}
	}, nil
}

// buildVersion is the module version the binary was built from ("(devel)" from a checkout).
func buildVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		return info.Main.Version
	}
	return "unknown"
}
