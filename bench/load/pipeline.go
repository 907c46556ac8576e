package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// pipelineResult is the ledger commit pipeline at concurrency 64, measured in the same run as
// the money scenarios (bench/ledger's "pipeline" scenario: the store's real code path, no HTTP),
// the yardstick the money path is read against.
type pipelineResult struct {
	TransfersPerSecond float64 `json:"transfersPerSecond"`
	P50Ms              float64 `json:"p50Ms"`
	P99Ms              float64 `json:"p99Ms"`
	ServerCPUMs        float64 `json:"serverCpuMsPerTransfer"`
	ClientCPUMs        float64 `json:"clientCpuMsPerTransfer"`
	Source             string  `json:"source"`
}

// runPipeline builds bench/ledger and runs its pipeline scenario at 64 for o.duration, on a
// scratch database of the started service's PostgreSQL server (else a throwaway cluster).
func runPipeline(ctx context.Context, o options, t *target) (*pipelineResult, error) {
	dir, err := os.MkdirTemp("", "corridor-bench-pipeline-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin, out := filepath.Join(dir, "bench-ledger"), filepath.Join(dir, "ledger.json")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./bench/ledger")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("build bench/ledger: %w", err)
	}
	cmd := exec.CommandContext(ctx, bin, "-only", "pipeline:64", "-rounds", "1",
		"-duration", o.duration.String(), "-out", out)
	cmd.Env = withoutEnv(os.Environ(), "DATABASE_URL")
	source := "a throwaway cluster"
	if url, ok := pgURL(t.pgData, "postgres"); ok && t.cmd != nil {
		// The server's processor time then includes the idle service's background passes.
		cmd.Env = append(cmd.Env, "DATABASE_URL="+url, "BENCH_SERVER_DATA_DIR="+t.pgData)
		source = "a scratch database on the service's PostgreSQL"
	}
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &log
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("bench/ledger: %w\n%s", err, log.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	var rep struct {
		Scenarios []struct {
			Name        string  `json:"name"`
			Concurrency int     `json:"concurrency"`
			TPS         float64 `json:"transfersPerSecond"`
			P50         float64 `json:"p50Ms"`
			P99         float64 `json:"p99Ms"`
			ServerCPU   float64 `json:"serverCpuMsPerTransfer"`
			ClientCPU   float64 `json:"clientCpuMsPerTransfer"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, err
	}
	for _, s := range rep.Scenarios {
		if s.Name == "pipeline" && s.Concurrency == 64 {
			return &pipelineResult{TransfersPerSecond: s.TPS, P50Ms: s.P50, P99Ms: s.P99,
				ServerCPUMs: s.ServerCPU, ClientCPUMs: s.ClientCPU, Source: source}, nil
		}
	}
	return nil, fmt.Errorf("bench/ledger reported no pipeline scenario at 64")
}

// printMoney prints the money scenarios beside the pipeline, with their ratios to it.
func printMoney(w io.Writer, results []scenarioResult, p *pipelineResult) {
	if p == nil {
		return
	}
	fmt.Fprintf(w, "\nledger pipeline, c64, same run (%s): %.0f transfers/s, p50 %.2f ms, p99 %.2f ms, CPU ms/transfer: PostgreSQL %.3f, client %.3f\n",
		p.Source, p.TransfersPerSecond, p.P50Ms, p.P99Ms, p.ServerCPUMs, p.ClientCPUMs)
	fmt.Fprintln(w, "\n| money scenario | workers | req/s | ÷ pipeline | p50 ms | p99 ms | CPU ms/request: service / PostgreSQL | server peak RSS MiB | statements / commits / rows written per request | write syscalls / allocs / KiB per request |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---|---:|---|---|")
	for _, r := range results {
		if !isMoney(r.Name) {
			continue
		}
		ratio := 0.0
		if p.TransfersPerSecond > 0 {
			ratio = r.OKPerSecond / p.TransfersPerSecond
		}
		fmt.Fprintf(w, "| %s | %d | %.0f | **%.2f** | %.2f | %.1f | %.3f / %.3f | %.0f | %.1f / %.2f / %.1f | %.1f / %s / %s |\n",
			r.Name, r.Workers, r.OKPerSecond, ratio, r.P50Ms, r.P99Ms, r.ServerCPUMsPerRequest, r.DatabaseCPUMsPerRequest, r.ServerPeakRSSMiB,
			r.StatementsPerRequest, r.CommitsPerRequest, r.RowsWrittenPerRequest,
			r.WriteSyscallsPerRequest, r.allocsCell(), r.allocKiBCell())
	}
}

func isMoney(name string) bool {
	for _, s := range allScenarios {
		if s.Name == name {
			return s.Money
		}
	}
	return false
}
