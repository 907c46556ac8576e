package main

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// Each side of the shutdown gets its own budget, counted from the same moment: a drain that
// uses all of its time leaves the workers theirs.
func TestShutdown_SeparateBudgets(t *testing.T) {
	var httpBudget, workersBudget time.Duration
	budget := func(out *time.Duration) func(context.Context) error {
		return func(ctx context.Context) error {
			deadline, _ := ctx.Deadline()
			*out = time.Until(deadline)
			<-ctx.Done()
			return ctx.Err()
		}
	}
	start := time.Now()
	err := shutdown(budget(&httpBudget), budget(&workersBudget), 50*time.Millisecond, 300*time.Millisecond,
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil {
		t.Fatal("a drain past its budget reported no error")
	}
	if httpBudget > 50*time.Millisecond || workersBudget < 250*time.Millisecond {
		t.Fatalf("budgets: http %v (want ≤50ms), workers %v (want ≈300ms)", httpBudget, workersBudget)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("shutdown took %v: the budgets are not spent at the same time", took)
	}
}

// The first-steps banner names what Ctrl-C stops: the local PostgreSQL and the dev chain only
// when this run provides them.
func TestStoppedByCtrlC(t *testing.T) {
	local := Config{Local: true, Chain: chainConfig{DevChain: true}}
	if got := stoppedByCtrlC(local); got != "the service, the local PostgreSQL and the dev chain it started" {
		t.Errorf("local run: %q", got)
	}
	external := Config{Service: serviceConfig{DatabaseURL: "postgres://db"}, Chain: chainConfig{TestRPCURL: "http://node", DevChain: true}}
	if got := stoppedByCtrlC(external); got != "the service" {
		t.Errorf("external database and chain: %q", got)
	}
	noChain := Config{Local: true, Chain: chainConfig{DevChain: false}}
	if got := stoppedByCtrlC(noChain); got != "the service and the local PostgreSQL" {
		t.Errorf("no dev chain: %q", got)
	}
	serve := Config{Service: serviceConfig{DatabaseURL: "postgres://db"}, Chain: chainConfig{DevChain: true}}
	if got := stoppedByCtrlC(serve); got != "the service" {
		t.Errorf("serve starts no dev chain: %q", got)
	}
}
