package main

import (
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
)

// TestMetricsAddr: METRICS_ADDR is off or host:port, and never the API's own port.
func TestMetricsAddr(t *testing.T) {
	for _, tc := range []struct {
		addr, api string
		ok        bool
	}{
		{"127.0.0.1:9464", ":8080", true},
		{":9464", ":8080", true},
		{"off", ":8080", true},
		{"127.0.0.1:8080", ":8080", false},
		{":8080", "127.0.0.1:8080", false},
		{"9464", ":8080", false},
		{"127.0.0.1:", ":8080", false},
	} {
		if err := checkMetricsAddr(tc.addr, tc.api); (err == nil) != tc.ok {
			t.Errorf("checkMetricsAddr(%q, %q) = %v, want ok=%v", tc.addr, tc.api, err, tc.ok)
		}
	}
}

// TestListenMetrics_DefaultFallsBackWhenTaken: with the address taken, the default address
// binds a free port on the same host instead; an address the operator chose fails.
func TestListenMetrics_DefaultFallsBackWhenTaken(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ln, err := listenMetrics(addr, true, log)
	if err != nil {
		t.Fatalf("fallback: %v", err)
	}
	defer ln.Close()
	if got := ln.Addr().String(); got == addr || !strings.HasPrefix(got, "127.0.0.1:") {
		t.Fatalf("fell back to %s, taken %s", got, addr)
	}
	if _, err := listenMetrics(addr, false, log); err == nil || !strings.Contains(err.Error(), "METRICS_ADDR") {
		t.Fatalf("a chosen address that is taken: %v, want a METRICS_ADDR error", err)
	}
}
