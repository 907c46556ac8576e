// Command load drives a running Corridor service with vegeta and reports, per scenario,
// requests per second, p50/p99/max latency, the success ratio and the status codes; it writes
// the same figures as JSON (bench/results/http.json by default). See bench/README.md.
//
// When nothing answers at -url and -start is set (the default), it starts `bin/corridor run`
// itself on a free loopback port with its own data dir (.data/bench), a random session secret
// and the rate limit off, and stops it with SIGINT at the end.
//
//	go run ./bench/load -duration 5s -scenarios capabilities,authenticated-read
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// defaultOut is where the full run's JSON goes.
const defaultOut = "bench/results/http.json"

type options struct {
	url          string
	start        bool
	bin          string
	dataDir      string
	startTimeout time.Duration
	sessionToken string
	duration     time.Duration
	rate         int
	workers      int
	timeout      time.Duration
	scenarios    string
	out          string
	profile      string
	list         bool
	// workersSet: -workers was given, and overrides the scenarios' own concurrency.
	workersSet bool
	// quick runs the money scenarios and the ledger pipeline only, briefly (-quick).
	quick         bool
	quickDuration bool
	// pipeline runs the ledger pipeline beside the money scenarios (-pipeline).
	pipeline bool
}

func main() {
	o := parseFlags()
	if o.list {
		for _, s := range allScenarios {
			fmt.Printf("  %-24s %s\n", s.Name, s.Measures)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := run(ctx, o)
	os.Exit(code)
}

func parseFlags() options {
	var o options
	defURL := os.Getenv("BENCH_URL")
	if defURL == "" {
		defURL = "http://127.0.0.1:8080"
	}
	flag.StringVar(&o.url, "url", defURL, "base URL of the service to drive (default $BENCH_URL or http://127.0.0.1:8080)")
	flag.BoolVar(&o.start, "start", true, "when nothing answers at -url, start bin/corridor run on a free port and stop it at the end")
	flag.StringVar(&o.bin, "bin", "bin/corridor", "corridor binary for -start (built with `go build` when missing)")
	flag.StringVar(&o.dataDir, "data-dir", ".data/bench", "CORRIDOR_DATA_DIR of the service started by -start")
	flag.DurationVar(&o.startTimeout, "start-timeout", 3*time.Minute, "how long to wait for a started service to become ready")
	flag.StringVar(&o.sessionToken, "session-token", "", "session token for an already running service (default: mint one with $SESSION_SECRET or <$CORRIDOR_DATA_DIR|.data>/session.secret)")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "duration of each scenario")
	flag.IntVar(&o.rate, "rate", 0, "requests per second per scenario; 0 = as fast as -workers allow")
	flag.IntVar(&o.workers, "workers", 32, "concurrent workers (the cap on requests in flight)")
	flag.DurationVar(&o.timeout, "timeout", 30*time.Second, "per-request timeout")
	flag.StringVar(&o.scenarios, "scenarios", "", "comma-separated subset of scenarios (default all; -list shows them)")
	flag.StringVar(&o.out, "out", defaultOut, "JSON results file; empty to skip (-quick: bench/results/money.json)")
	flag.StringVar(&o.profile, "profile", "", "directory for the started service's CPU, block, mutex and allocation profiles of each scenario (<scenario>.cpu.pprof …; the service gets DEBUG_ADDR on a free loopback port); empty: no profiling")
	flag.BoolVar(&o.list, "list", false, "list the scenarios and exit")
	flag.BoolVar(&o.quick, "quick", false, "the money scenarios (deposits, card-authorizations) and the ledger pipeline beside them only, 5 s each unless -duration is given: a run of about two minutes")
	flag.BoolVar(&o.pipeline, "pipeline", true, "when a money scenario runs, measure the ledger pipeline (bench/ledger, pipeline at concurrency 64) in the same run and print the ratios to it")
	flag.Parse()
	flag.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "workers":
			o.workersSet = true
		case "duration":
			if o.quick {
				o.quickDuration = true
			}
		}
	})
	if o.quick {
		if o.scenarios == "" {
			o.scenarios = "deposits,card-authorizations"
		}
		if !o.quickDuration {
			o.duration = 5 * time.Second
		}
		if o.out == defaultOut {
			o.out = "bench/results/money.json"
		}
	}
	return o
}

func run(ctx context.Context, o options) int {
	selected, err := selectScenarios(o.scenarios)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 2
	}
	if o.workers < 1 || o.rate < 0 || o.duration <= 0 {
		fmt.Fprintln(os.Stderr, "bench: -workers must be ≥ 1, -rate ≥ 0 and -duration > 0")
		return 2
	}

	m := currentMachine()
	fmt.Printf("machine: %s/%s, NumCPU=%d, GOMAXPROCS=%d, %s (load generator, service and PostgreSQL share it)\n",
		m.GOOS, m.GOARCH, m.NumCPU, m.GOMAXPROCS, m.GoVersion)

	tgt, err := acquireTarget(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	code := 0
	func() {
		defer func() {
			if err := tgt.close(); err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
				code = 1
			}
		}()
		code = drive(ctx, o, tgt, selected, m)
	}()
	return code
}

// drive bootstraps a tenant and runs the scenarios against tgt.
func drive(ctx context.Context, o options, tgt *target, selected []scenario, m machine) int {
	fmt.Printf("target: %s (%s)\n", tgt.baseURL, tgt.describe)
	e, how, err := bootstrap(ctx, tgt, o.sessionToken)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: bootstrap:", err)
		return 1
	}
	fmt.Printf("bootstrap: %s; tenant %s, root key %s…\n", how, e.TenantID, e.RootKey[:min(len(e.RootKey), 16)])
	pace := "as fast as the workers allow"
	if o.rate > 0 {
		pace = fmt.Sprintf("%d req/s", o.rate)
	}
	fmt.Printf("load: %s per scenario, %s, %d workers (the money scenarios: %d unless -workers is given)\n", o.duration, pace, o.workers, moneyWorkers)
	if tgt.durability != "" {
		fmt.Printf("database: %s\n", tgt.durability)
	}
	fmt.Println()

	var results []scenarioResult
	var failed error
	for _, s := range selected {
		if ctx.Err() != nil {
			break
		}
		fmt.Printf("%-24s ", s.Name)
		r, err := observed(ctx, o, tgt, e, s)
		if err != nil {
			fmt.Println("failed")
			failed = fmt.Errorf("%s: %w", s.Name, err)
			break
		}
		fmt.Printf("%d requests\n", r.Requests)
		results = append(results, r)
	}
	var pipe *pipelineResult
	if failed == nil && ctx.Err() == nil {
		pipe = pipelineBeside(ctx, o, tgt, results)
	}
	printSummary(results, pipe)
	switch {
	case failed != nil:
		fmt.Fprintln(os.Stderr, "bench:", failed, "\nbench: JSON not written")
		return 1
	case ctx.Err() != nil:
		fmt.Fprintln(os.Stderr, "bench: interrupted; partial figures above, JSON not written")
		return 130
	case o.out == "":
		return 0
	}
	rep := report{
		Tool: "bench/load (vegeta " + vegetaVersion + ")", Machine: m, Target: tgt.kind,
		Settings:  settings{DurationSeconds: o.duration.Seconds(), Rate: o.rate, Workers: o.workers},
		Scenarios: results, Durability: tgt.durability, Pipeline: pipe,
	}
	for _, r := range results {
		rep.ServerPeakRSSMiB = max(rep.ServerPeakRSSMiB, r.ServerPeakRSSMiB)
	}
	if err := writeJSON(o.out, rep); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	fmt.Printf("\nwrote %s; as a table for docs/performance.md (%s):\n\n", o.out, rep.Durability)
	printMarkdown(os.Stdout, rep)
	return 0
}

// pipelineBeside measures the ledger pipeline after the money scenarios (nil when none ran,
// -pipeline=false, or it failed: the HTTP figures stand without it).
func pipelineBeside(ctx context.Context, o options, tgt *target, results []scenarioResult) *pipelineResult {
	if !o.pipeline || !anyMoney(results) {
		return nil
	}
	fmt.Printf("%-24s ", "ledger pipeline c64")
	p, err := runPipeline(ctx, o, tgt)
	if err != nil {
		fmt.Println("failed")
		fmt.Fprintln(os.Stderr, "bench: ledger pipeline:", err)
		return nil
	}
	fmt.Printf("%.0f transfers/s\n", p.TransfersPerSecond)
	return p
}

// printSummary prints the results table, the per-request costs, the money scenarios beside
// the pipeline, and what may have spoiled the run.
func printSummary(results []scenarioResult, pipe *pipelineResult) {
	fmt.Println()
	printTable(os.Stdout, results)
	for _, r := range results {
		if r.ServerPeakRSSMiB > 0 {
			fmt.Printf("%s: server peak RSS %.1f MiB; CPU ms per request: server %.3f, PostgreSQL %.3f, load generator %.3f; load average %.2f → %.2f\n",
				r.Name, r.ServerPeakRSSMiB, r.ServerCPUMsPerRequest, r.DatabaseCPUMsPerRequest, r.LoadGeneratorCPUMsPerRequest,
				r.LoadAverage[0], r.LoadAverage[1])
		}
	}
	for _, r := range results {
		if r.StatementsPerRequest > 0 || r.WriteSyscallsPerRequest > 0 {
			fmt.Printf("%s: per request: %.2f statements, %.2f commits, %.2f rows written, %.2f service write syscalls, %s allocations (%s KiB)\n",
				r.Name, r.StatementsPerRequest, r.CommitsPerRequest, r.RowsWrittenPerRequest, r.WriteSyscallsPerRequest,
				r.allocsCell(), r.allocKiBCell())
		}
		if r.Lanes != nil {
			fmt.Printf("%s: pipeline: %s\n", r.Name, r.Lanes)
			if tail := r.Lanes.Tail(); tail != "" {
				fmt.Printf("%s: tail: %s\n", r.Name, tail)
			}
		}
	}
	printMoney(os.Stdout, results, pipe)
	for _, r := range results {
		if strings.Contains(r.Name, "fresh") && r.Replayed > 0 {
			fmt.Printf("\nwarning: %s got %d replayed responses: its Idempotency-Keys were not new, so it did not measure first executions\n", r.Name, r.Replayed)
		}
	}
	for _, r := range results {
		if r.StatusCodes["429"] > 0 {
			fmt.Println("\nnote: the service answered 429: it rate-limits; run it with RATE_LIMIT_PER_SECOND=0 for a bench")
			break
		}
	}
}

func anyMoney(results []scenarioResult) bool {
	for _, r := range results {
		if isMoney(r.Name) {
			return true
		}
	}
	return false
}

func selectScenarios(list string) ([]scenario, error) {
	if strings.TrimSpace(list) == "" {
		return allScenarios, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	var out []scenario
	for _, s := range allScenarios {
		if want[s.Name] {
			out = append(out, s)
			delete(want, s.Name)
		}
	}
	if len(want) > 0 {
		var unknown, names []string
		for n := range want {
			unknown = append(unknown, n)
		}
		for _, s := range allScenarios {
			names = append(names, s.Name)
		}
		return nil, fmt.Errorf("unknown scenario(s) %s; known: %s", strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	if len(out) == 0 {
		return nil, errors.New("-scenarios selects nothing")
	}
	return out, nil
}

type machine struct {
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	NumCPU     int    `json:"numCPU"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	GoVersion  string `json:"goVersion"`
}

func currentMachine() machine {
	return machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, NumCPU: runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version()}
}
