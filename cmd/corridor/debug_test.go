package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestDebugAddrMustBeLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"": true, "127.0.0.1:6060": true, "[::1]:6060": true, "localhost:6060": true,
		"0.0.0.0:6060": false, ":6060": false, "10.0.0.5:6060": false, "127.0.0.1": false, "example.com:6060": false,
	} {
		if err := checkDebugAddr(addr); (err == nil) != ok {
			t.Errorf("checkDebugAddr(%q) = %v, want ok=%v", addr, err, ok)
		}
	}
	if _, err := startDebugServer("0.0.0.0:0", slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "DEBUG_ADDR") {
		t.Fatalf("a public DEBUG_ADDR was accepted: %v", err)
	}
}

func TestDebugServerServesPprofOnItsOwnListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	stop, err := startDebugServer(addr, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine profile") {
		t.Fatalf("status %d, body %.200s", resp.StatusCode, body)
	}
}
