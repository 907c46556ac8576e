// Command cluster is `make bench-cluster`: the capacity model's measurement (docs/scaling.md).
// It starts a throwaway PostgreSQL primary, then for each run one or more replicas of the
// service in this process on it, and drives the same mixed load round robin across the
// replicas with plain HTTP clients: an idempotent sandbox deposit (one ledger transfer with
// its idempotency record), then a balance read. It prints requests and transfers per second
// of wall time, with the load average around each run.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/corridorhq/corridor/adapters/pgcluster"
	"github.com/corridorhq/corridor/bench/internal/apiload"
	"github.com/corridorhq/corridor/wiring"
)

type run struct {
	replicas int
	limits   string // memory or postgres
}

func main() {
	runs := flag.String("runs", "1:memory,1:postgres,3:postgres", "replicas:limits of each run")
	requests := flag.Int("requests", 6000, "deposit+read pairs per run")
	concurrency := flag.Int("concurrency", 32, "clients sending at once")
	tenants := flag.Int("tenants", 32, "tenants the deposits spread over")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := measure(ctx, *runs, *requests, *concurrency, *tenants); err != nil {
		fmt.Fprintln(os.Stderr, "bench-cluster:", err)
		os.Exit(1)
	}
}

func measure(ctx context.Context, spec string, requests, concurrency, tenants int) error {
	var runs []run
	for _, item := range strings.Split(spec, ",") {
		n, limits, ok := strings.Cut(strings.TrimSpace(item), ":")
		replicas, err := strconv.Atoi(n)
		if !ok || err != nil || replicas < 1 || (limits != "memory" && limits != "postgres") {
			return fmt.Errorf("bad run %q: want replicas:memory|postgres", item)
		}
		runs = append(runs, run{replicas: replicas, limits: limits})
	}
	fmt.Printf("%-9s %-8s %9s %9s %12s %12s %s\n", "replicas", "limits", "requests", "seconds", "requests/s", "transfers/s", "load average")
	for _, r := range runs {
		if err := measureOne(ctx, r, requests, concurrency, tenants); err != nil {
			return err
		}
	}
	return nil
}

// measureOne runs on a fresh primary, so every run starts from the same empty database.
func measureOne(ctx context.Context, r run, requests, concurrency, tenants int) error {
	primary, err := pgcluster.NewThrowaway(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = primary.Remove() }()
	if err := primary.CreateDatabase(ctx, "corridor"); err != nil {
		return err
	}
	url := primary.URL("corridor")
	if _, err := wiring.Migrate(ctx, url); err != nil {
		return err
	}
	bases := make([]string, r.replicas)
	for i := range bases {
		base, stopReplica, err := apiload.StartReplica(ctx, url, r.limits == "postgres")
		if err != nil {
			return err
		}
		defer stopReplica()
		bases[i] = base
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: concurrency}}
	keys := make([]string, tenants)
	for i := range keys {
		if keys[i], err = apiload.NewTenant(client, bases[i%len(bases)]); err != nil {
			return err
		}
	}
	loadBefore := apiload.LoadAverage()
	start := time.Now()
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				n := next.Add(1)
				if n > int64(requests) || failed.Load() != nil {
					return
				}
				base, key := bases[int(n)%len(bases)], keys[int(n)%len(keys)]
				if err := apiload.Pair(client, base, key, n); err != nil {
					failed.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	if err, _ := failed.Load().(error); err != nil {
		return err
	}
	fmt.Printf("%-9d %-8s %9d %9.2f %12.0f %12.0f %s → %s\n", r.replicas, r.limits, 2*requests, elapsed,
		float64(2*requests)/elapsed, float64(requests)/elapsed, loadBefore, apiload.LoadAverage())
	return nil
}
