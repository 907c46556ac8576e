package http

import (
	"io"
	"log/slog"
	"strings"
	"testing"
)

// TestNew_RefusesMissingServices: a server wired without a capability's service fails at
// start-up naming it, rather than on the first request that routes to it.
func TestNew_RefusesMissingServices(t *testing.T) {
	svc := nopServices(t)
	svc.SafePay, svc.Offramp = nil, nil
	_, err := New(Config{Store: nopStore{}}, svc, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "SafePay, Offramp") {
		t.Fatalf("err = %v, want the missing services named", err)
	}
}
