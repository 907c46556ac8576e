package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"
)

// Sampling of the block and mutex profiles while DEBUG_ADDR is set: a blocking event is
// sampled about once per blockProfileRate nanoseconds spent blocked, one contended mutex
// event in mutexProfileFraction. Both cost little at these rates; neither runs without it.
const (
	blockProfileRate     = 10_000
	mutexProfileFraction = 100
)

// checkDebugAddr accepts an empty address or a loopback host with a port: the profiler shows
// the process's memory and stacks, and never listens on a public interface.
func checkDebugAddr(addr string) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return configError{"DEBUG_ADDR", "must be host:port on a loopback address, e.g. 127.0.0.1:6060"}
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return configError{"DEBUG_ADDR", "must be a loopback address (127.0.0.1, [::1] or localhost): the profiler exposes the process's memory and stacks"}
	}
	return nil
}

// startDebugServer serves net/http/pprof on addr, on its own listener and mux (nothing else is
// exposed there, and the API listener never serves it). It returns a stop function; with an
// empty addr it does nothing.
func startDebugServer(addr string, log *slog.Logger) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	if err := checkDebugAddr(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("DEBUG_ADDR: %w", err)
	}
	runtime.SetBlockProfileRate(blockProfileRate)
	runtime.SetMutexProfileFraction(mutexProfileFraction)
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("debug listener stopped", "error", err.Error())
		}
	}()
	log.Info("profiler listening (DEBUG_ADDR)", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		runtime.SetBlockProfileRate(0)
		runtime.SetMutexProfileFraction(0)
	}, nil
}
