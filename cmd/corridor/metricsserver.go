package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"syscall"
	"time"
)

// metricsOff is the METRICS_ADDR value that turns the metrics listener off.
const metricsOff = "off"

// defaultMetricsAddr is METRICS_ADDR's default. Taken (a second `corridor run` on the machine),
// it falls back to a free loopback port, logged, as the dev chain does: only an address the
// operator chose is worth failing over.
const defaultMetricsAddr = "127.0.0.1:9464"

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
	ln, err := listenMetrics(addr, addr == defaultMetricsAddr, log)
	if err != nil {
		return nil, err
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

// listenMetrics binds addr; when fallback is set and addr is taken it binds a free port on the
// same host instead, and says so. The bind itself decides, never a check before it.
func listenMetrics(addr string, fallback bool, log *slog.Logger) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil || !fallback || !errors.Is(err, syscall.EADDRINUSE) {
		if err != nil {
			return nil, fmt.Errorf("METRICS_ADDR: %w", err)
		}
		return ln, nil
	}
	host, _, _ := net.SplitHostPort(addr)
	ln, fallbackErr := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if fallbackErr != nil {
		return nil, fmt.Errorf("METRICS_ADDR: %w (and no free port on %s: %v)", err, host, fallbackErr)
	}
	log.Warn("the default metrics address is taken (another corridor on this machine?); metrics listen on a free port instead",
		"taken", addr, "addr", ln.Addr().String())
	return ln, nil
}
