package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"text/tabwriter"
)

// report is the JSON file. It holds no timestamps, URLs or ports, so two runs differ only in
// their figures.
type report struct {
	Tool     string   `json:"tool"`
	Machine  machine  `json:"machine"`
	Target   string   `json:"target"` // "started" (by the bench) or "external"
	Settings settings `json:"settings"`
	// Durability is the started cluster's fsync, synchronous_commit and full_page_writes
	// (empty for an external service, whose database the bench cannot see).
	Durability string `json:"durability,omitempty"`
	// ServerPeakRSSMiB is the largest of the scenarios' peaks (a started service only).
	ServerPeakRSSMiB float64          `json:"serverPeakRssMiB,omitempty"`
	Scenarios        []scenarioResult `json:"scenarios"`
	// Pipeline is the ledger pipeline measured in the same run, when a money scenario ran.
	Pipeline *pipelineResult `json:"ledgerPipeline,omitempty"`
}

type settings struct {
	DurationSeconds float64 `json:"durationSeconds"`
	Rate            int     `json:"rate"` // 0: as fast as the workers allow
	Workers         int     `json:"workers"`
}

type scenarioResult struct {
	Name        string         `json:"name"`
	Rate        int            `json:"rate"` // fixed arrival rate, 0: as fast as the workers allow
	Workers     int            `json:"workers"`
	Requests    uint64         `json:"requests"`
	RPS         float64        `json:"rps"`         // requests sent per second
	OKPerSecond float64        `json:"okPerSecond"` // 2xx/3xx responses per second
	P50Ms       float64        `json:"p50Ms"`
	P99Ms       float64        `json:"p99Ms"`
	MaxMs       float64        `json:"maxMs"`
	Success     float64        `json:"success"` // ratio of 2xx/3xx responses
	StatusCodes map[string]int `json:"statusCodes"`
	Replayed    uint64         `json:"replayed,omitempty"` // responses with Idempotent-Replayed: true
	Failures    map[string]int `json:"failures,omitempty"` // "status ERROR_CODE" → count
	// ServerPeakRSSMiB is the started service's peak resident set during the scenario (VmHWM,
	// reset before it starts); 0 for an external service.
	ServerPeakRSSMiB float64 `json:"serverPeakRssMiB,omitempty"`
	// ServerCPUMsPerRequest is the started service's CPU time (user + system) over the
	// scenario divided by its requests: the service's own cost, which other load on the
	// machine moves much less than throughput or latency.
	ServerCPUMsPerRequest float64 `json:"serverCpuMsPerRequest,omitempty"`
	// DatabaseCPUMsPerRequest is the same for the started cluster's processes, and
	// LoadGeneratorCPUMsPerRequest for this bench itself: with the service's, where the
	// machine's cores went per request.
	DatabaseCPUMsPerRequest      float64 `json:"databaseCpuMsPerRequest,omitempty"`
	LoadGeneratorCPUMsPerRequest float64 `json:"loadGeneratorCpuMsPerRequest,omitempty"`
	// Load-independent costs per request (dbstats.go; 0 when not measurable): statements the
	// service sent (pg_stat_statements, BEGIN/COMMIT/SAVEPOINT included), transactions
	// committed, rows written, the service's write system calls (each exchange with PostgreSQL
	// is one, the HTTP response another, a log line a third) and, with -profile, its heap
	// allocations and allocated KiB.
	StatementsPerRequest    float64 `json:"statementsPerRequest,omitempty"`
	CommitsPerRequest       float64 `json:"commitsPerRequest,omitempty"`
	RowsWrittenPerRequest   float64 `json:"rowsWrittenPerRequest,omitempty"`
	WriteSyscallsPerRequest float64 `json:"writeSyscallsPerRequest,omitempty"`
	AllocsPerRequest        float64 `json:"allocsPerRequest,omitempty"`
	AllocKiBPerRequest      float64 `json:"allocKiBPerRequest,omitempty"`
	// Lanes are the commit pipeline's batches and where its lanes' time went (lanes.go).
	Lanes *laneResult `json:"lanes,omitempty"`
	// LoadAverage is the machine's one-minute load average before and after the scenario.
	LoadAverage [2]float64 `json:"loadAverage"`
}

// allocsCell and allocKiBCell print the heap allocations per request, or "–" where they were
// not measured (without -profile the service has no debug endpoint to read them from): a
// request never allocates nothing, so 0 is "not measured", never a figure.
func (r scenarioResult) allocsCell() string {
	if r.AllocsPerRequest == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", r.AllocsPerRequest)
}

func (r scenarioResult) allocKiBCell() string {
	if r.AllocsPerRequest == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f", r.AllocKiBPerRequest)
}

var vegetaVersion = func() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/tsenart/vegeta/v12" {
				return d.Version
			}
		}
	}
	return "v12"
}()

func printTable(w io.Writer, results []scenarioResult) {
	if len(results) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\trequests\treq/s\tp50 ms\tp99 ms\tmax ms\tsuccess\tstatus codes\t")
	for _, r := range results {
		codes := make([]string, 0, len(r.StatusCodes))
		for _, c := range sortedKeys(r.StatusCodes) {
			codes = append(codes, fmt.Sprintf("%s×%d", c, r.StatusCodes[c]))
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f%%\t%s\t\n", r.Name, r.Requests, r.RPS,
			r.P50Ms, r.P99Ms, r.MaxMs, 100*r.Success, strings.Join(codes, " "))
	}
	_ = tw.Flush()
	for _, r := range results {
		if r.Replayed > 0 {
			fmt.Fprintf(w, "%s: %d responses replayed (Idempotent-Replayed: true)\n", r.Name, r.Replayed)
		}
		for _, k := range sortedKeys(r.Failures) {
			fmt.Fprintf(w, "%s: %d × %s\n", r.Name, r.Failures[k], k)
		}
	}
}

func writeJSON(path string, rep report) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// printMarkdown prints the results as the table of docs/performance.md, so refreshing the
// document after a run is a paste.
func printMarkdown(w io.Writer, rep report) {
	fmt.Fprintln(w, "| scenario | rate | req/s | p50 ms | p99 ms | max ms | success | server peak RSS MiB | CPU ms/request: server / PostgreSQL / load generator | load average |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
	for _, r := range rep.Scenarios {
		rate := "max"
		if r.Rate > 0 {
			rate = fmt.Sprintf("%d/s", r.Rate)
		}
		fmt.Fprintf(w, "| %s | %s | %.0f | %.2f | %.1f | %.0f | %.2f %% | %.0f | %.3f / %.3f / %.3f | %.1f → %.1f |\n",
			r.Name, rate, r.RPS, r.P50Ms, r.P99Ms, r.MaxMs, 100*r.Success, r.ServerPeakRSSMiB,
			r.ServerCPUMsPerRequest, r.DatabaseCPUMsPerRequest, r.LoadGeneratorCPUMsPerRequest, r.LoadAverage[0], r.LoadAverage[1])
	}
}
