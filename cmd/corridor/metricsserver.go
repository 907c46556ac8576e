package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// metricsOff is the METRICS_ADDR value that turns the metrics listener off.
const metricsOff = "off"

// checkMetricsAddr accepts off or a host:port whose port differs from the API's: metrics show
// the platform's internals (queue depths, relayer balances) and are never served beside the
// public API.
func checkMetricsAddr(addr, apiAddr string) error {
	if addr == metricsOff {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return configError{"METRICS_ADDR", "must be host:port (e.g. 127.0.0.1:9464 or :9464) or off"}
	}
	if _, apiPort, err := net.SplitHostPort(apiAddr); err == nil && apiPort == port {
		return configError{"METRICS_ADDR", "must not use the API's port " + port + ": metrics are never served beside the public API"}
	}
	return nil
}

// startMetricsServer serves handler at /metrics on its own listener and mux. It returns a
// stop function; with METRICS_ADDR off it does nothing.
func startMetricsServer(addr, apiAddr string, handler http.Handler, log *slog.Logger) (stop func(), err error) {
	if err := checkMetricsAddr(addr, apiAddr); err != nil {
		return nil, err
	}
	if addr == metricsOff {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("METRICS_ADDR: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", handler)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("metrics listener stopped", "error", err.Error())
		}
	}()
	log.Info("metrics listening (METRICS_ADDR)", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}
