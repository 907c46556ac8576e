// Command ledger measures the ledger store (`make bench-ledger`): transfers per second and
// p50/p99 latency of single two-posting transfers at several concurrencies, of batches of 100
// transfers in one unit of work, of a hot account against spread accounts, of the store's commit
// pipeline (pipeline, pipeline-hot at concurrency 64), and, on the same PostgreSQL cluster, a
// pgbench run of the equivalent raw SQL writes as the machine's ceiling. The throwaway cluster
// runs with production durability (fsync, synchronous_commit, full_page_writes on).
// It prints a table and writes bench/results/ledger.json. Nothing here is asserted: the
// figures depend on the machine (docs/performance.md records them).
//
// Without DATABASE_URL it starts a throwaway local cluster (adapters/pgcluster) and removes
// it at the end; with DATABASE_URL it creates a scratch database there (the role needs
// CREATEDB) and drops it at the end. Every scenario runs through the real store code path:
// postgres.Store.InTx and tx.Ledger().Post, as a use case would, not over HTTP.
//
//	go run ./bench/ledger -duration 8s -out bench/results/ledger.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
)

type options struct {
	duration   time.Duration
	warmup     time.Duration
	accounts   int
	out        string
	pgbench    string
	only       string
	cpuProfile string
	rounds     int
	pipeline   postgres.PipelineOptions
	// experimentSQL runs once after the migrations (a candidate schema change, measured
	// against a run without it; such a run is not comparable to the recorded figures).
	experimentSQL string
}

func main() {
	o := options{}
	flag.DurationVar(&o.duration, "duration", 6*time.Second, "measured time per scenario")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured time before each ledger scenario")
	flag.IntVar(&o.accounts, "accounts", 1000, "spread accounts (the hot account is one more)")
	flag.StringVar(&o.out, "out", "bench/results/ledger.json", "where to write the JSON results")
	flag.StringVar(&o.pgbench, "pgbench", "", "pgbench binary (default: PATH, then /usr/lib/postgresql/*/bin)")
	flag.StringVar(&o.only, "only", "", "run only these scenarios, e.g. single:32,hot:32,pgbench:32,pgbench-hot:32 (default: all)")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the run to this file")
	flag.IntVar(&o.rounds, "rounds", 3, "how often the concurrency-32 scenarios (single, pgbench, hot, pgbench-hot) run; the ratios use medians")
	flag.StringVar(&o.experimentSQL, "experiment-sql", "", "SQL run once after the migrations, e.g. a candidate journal layout's DDL (docs/performance.md, issue #34); the figures are then not comparable to recorded runs")
	flag.IntVar(&o.pipeline.Lanes, "pipeline-lanes", postgres.DefaultPipelineLanes, "commit pipeline: batches at once")
	flag.IntVar(&o.pipeline.MaxBatch, "pipeline-batch", postgres.DefaultPipelineMaxBatch, "commit pipeline: units per batch at most")
	flag.DurationVar(&o.pipeline.MaxWait, "pipeline-wait", postgres.DefaultPipelineMaxWait, "commit pipeline: how long a batch waits for units")
	flag.BoolVar(&o.pipeline.Overlap, "pipeline-overlap", false, "commit pipeline: a lane opens its next batch while the previous one commits")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-ledger:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	// The throwaway cluster comes first: on a machine without PostgreSQL it installs the server
	// packages, which bring pgbench along.
	db, err := provision(ctx)
	if err != nil {
		return err
	}
	defer db.cleanup()
	pgbench, err := findPgbench(o.pgbench)
	if err != nil {
		return err
	}
	b, err := newBench(ctx, db, o)
	if err != nil {
		return err
	}
	defer b.close()
	report := newReport(o, db)
	report.Pipeline = pipelineSettings{Lanes: o.pipeline.Lanes, MaxBatch: o.pipeline.MaxBatch, MaxWait: o.pipeline.MaxWait.String(), Overlap: o.pipeline.Overlap}
	fmt.Fprintf(os.Stderr, "bench-ledger: %s; %d spread accounts; %s per scenario\n", db.source, o.accounts, o.duration)
	stopProfile, err := startProfile(o.cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	for _, st := range b.plan() {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if st.ledger != nil && selected(o.only, st.ledger.name, st.ledger.concurrency) {
			fmt.Fprintf(os.Stderr, "  running %-8s c=%-3d …\n", st.ledger.name, st.ledger.concurrency)
			before := b.pipe.PipelineStats()
			res, err := b.measure(ctx, *st.ledger)
			if err != nil {
				return fmt.Errorf("%s c=%d: %w", st.ledger.name, st.ledger.concurrency, err)
			}
			if strings.HasPrefix(st.ledger.name, "pipeline") {
				report.Pipeline.addLaneTime(before, b.pipe.PipelineStats())
			}
			report.add(res)
		}
		name := map[bool]string{false: "pgbench", true: "pgbench-hot"}[st.pgbenchHot]
		if st.pgbench > 0 && selected(o.only, name, st.pgbench) {
			fmt.Fprintf(os.Stderr, "  running %-8s c=%-3d …\n", name, st.pgbench)
			res, err := runPgbench(ctx, pgbench, db.url, db.dataDir, o, st.pgbench, st.pgbenchHot)
			if err != nil {
				return fmt.Errorf("pgbench c=%d: %w", st.pgbench, err)
			}
			report.addCeiling(res)
		}
	}
	st := b.pipe.PipelineStats()
	report.Pipeline.Stats = st
	if st.Batches > 0 {
		report.Pipeline.MeanBatch = round3(float64(st.Units) / float64(st.Batches))
	}
	report.finish()
	report.print(os.Stdout)
	return report.write(o.out)
}

// selected reports whether -only lets a scenario run.
func selected(only, name string, concurrency int) bool {
	if only == "" {
		return true
	}
	for _, item := range strings.Split(only, ",") {
		if item == name || item == fmt.Sprintf("%s:%d", name, concurrency) {
			return true
		}
	}
	return false
}

func startProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
