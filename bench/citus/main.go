// Command citus is `make bench-citus`: the same two workloads on plain PostgreSQL and on a
// local Citus cluster (a coordinator and two workers), one after the other in one run, so
// both see the same machine. The workloads:
//
//   - ledger: the ledger store's commit pipeline (postgres.Store.WithPipeline), concurrent
//     units each posting one transfer within one of many tenants (its share of the sandbox pool
//     to its available balance, a deposit's booking), as a use case does;
//   - deposits: the API's money path, one replica of the service built in this process
//     (wiring.Build: Fiber, auth, limits, the pipeline, River workers) and plain HTTP clients
//     sending idempotent $1 sandbox deposits spread over tenants (each one ledger transfer and
//     its idempotency record).
//
// For each it prints transfers per second of wall time and the processor time per transfer
// (every PostgreSQL node's and this process's), then the Citus/PostgreSQL ratio of both, the
// processor time per transfer by process (service, coordinator, each worker) and the capacity
// model docs/scaling.md describes, computed from it: what one PostgreSQL server and Citus with
// N workers would carry on machines of -model-cores cores.
// Both databases are throwaway clusters with the test settings (fsync off), the service and
// the nodes share this machine's cores; nothing is asserted (docs/scaling.md records figures).
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/corridorhq/corridor/adapters/pgcluster"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/bench/internal/apiload"
	"github.com/corridorhq/corridor/bench/internal/proccpu"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/wiring"
)

type options struct {
	duration    time.Duration // the ledger workload's measured time
	concurrency int           // the ledger workload's units at once
	accounts    int
	deposits    int // the API workload's deposits
	clients     int
	tenants     int
	modelCores  int    // the capacity model's cores per machine
	only        string // "postgres" or "citus": measure that database alone (no ratio, no model)
}

// result is one workload on one database.
type result struct {
	database, workload string
	transfers          int
	wall, cpu          time.Duration
	split              split // cpu by process, for the capacity model
	load               string
}

func (r result) perSecond() float64 { return float64(r.transfers) / r.wall.Seconds() }
func (r result) cpuMs() float64 {
	return float64(r.cpu.Microseconds()) / 1000 / float64(max(r.transfers, 1))
}

func main() {
	o := options{}
	flag.DurationVar(&o.duration, "duration", 8*time.Second, "ledger workload: measured time")
	flag.IntVar(&o.concurrency, "concurrency", 64, "ledger workload: units of work at once")
	flag.IntVar(&o.accounts, "accounts", 1000, "ledger workload: tenants the transfers spread over (two accounts each)")
	flag.IntVar(&o.deposits, "deposits", 3000, "API workload: deposits sent")
	flag.IntVar(&o.clients, "clients", 32, "API workload: clients sending at once")
	flag.IntVar(&o.tenants, "tenants", 32, "API workload: tenants the deposits spread over")
	flag.IntVar(&o.modelCores, "model-cores", 8, "capacity model: cores per machine")
	flag.StringVar(&o.only, "only", "", "measure one database alone: postgres or citus (no ratio, no capacity model)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-citus:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	fmt.Printf("%-9s %-9s %9s %8s %12s %16s %s\n", "database", "workload", "transfers", "seconds", "transfers/s", "cpu ms/transfer", "load average")
	var results []result
	databases := []string{"postgres", "citus"}
	if o.only != "" {
		if o.only != "postgres" && o.only != "citus" {
			return fmt.Errorf("-only %q: want postgres or citus", o.only)
		}
		databases = []string{o.only}
	}
	for _, database := range databases {
		for _, workload := range []string{"ledger", "deposits"} {
			r, err := measure(ctx, o, database, workload)
			if err != nil {
				return fmt.Errorf("%s %s: %w", database, workload, err)
			}
			fmt.Printf("%-9s %-9s %9d %8.2f %12.0f %16.3f %s\n", r.database, r.workload, r.transfers, r.wall.Seconds(),
				r.perSecond(), r.cpuMs(), r.load)
			results = append(results, r)
		}
	}
	if o.only != "" {
		printSplit(results)
		return nil
	}
	fmt.Println()
	for i, workload := range []string{"ledger", "deposits"} {
		pg, ci := results[i], results[i+2]
		fmt.Printf("%-9s citus/postgres: throughput %.2f, cpu per transfer %.2f\n", workload,
			ci.perSecond()/pg.perSecond(), ci.cpuMs()/pg.cpuMs())
	}
	printModel(results, o.modelCores)
	return nil
}

// database is a fresh throwaway database: its URL, the data directories of its nodes (for
// their processor time; the coordinator's, or the one server's, first) and how to remove it.
type database struct {
	citus    bool
	url      string
	dataDirs []string
	remove   func()
}

// provision starts a throwaway PostgreSQL or Citus cluster and migrates a database on it (on
// Citus, wiring.Migrate also distributes it).
func provision(ctx context.Context, kind string) (database, error) {
	d := database{citus: kind == "citus"}
	if d.citus {
		cc, err := pgcluster.NewCitusThrowaway(ctx, nil)
		if err != nil {
			return d, err
		}
		d.remove = func() { _ = cc.Remove() }
		for _, n := range cc.Nodes() {
			d.dataDirs = append(d.dataDirs, n.DataDir())
		}
		if err := cc.CreateDatabase(ctx, "bench"); err != nil {
			d.remove()
			return d, err
		}
		d.url = cc.URL("bench")
	} else {
		c, err := pgcluster.NewThrowaway(ctx, nil)
		if err != nil {
			return d, err
		}
		d.remove = func() { _ = c.Remove() }
		d.dataDirs = []string{c.DataDir()}
		if err := c.CreateDatabase(ctx, "bench"); err != nil {
			d.remove()
			return d, err
		}
		d.url = c.URL("bench")
	}
	if _, err := wiring.Migrate(ctx, d.url); err != nil {
		d.remove()
		return d, err
	}
	return d, nil
}

// cpu is the processor time used so far by this process and by each node.
func (d database) cpu() split {
	s := split{service: proccpu.Self(), coordinator: proccpu.Server(d.dataDirs[0])}
	for _, dir := range d.dataDirs[1:] {
		s.workers = append(s.workers, proccpu.Server(dir))
	}
	return s
}

// since is the processor time used between before and s, in total and by process.
func (s split) since(before split) (time.Duration, split) {
	out := split{service: s.service - before.service, coordinator: s.coordinator - before.coordinator}
	total := out.service + out.coordinator
	for i := range s.workers {
		out.workers = append(out.workers, s.workers[i]-before.workers[i])
		total += out.workers[i]
	}
	return total, out
}

// measure runs one workload on a fresh database of its own.
func measure(ctx context.Context, o options, kind, workload string) (result, error) {
	d, err := provision(ctx, kind)
	if err != nil {
		return result{}, err
	}
	defer d.remove()
	r := result{database: kind, workload: workload}
	if workload == "ledger" {
		err = measureLedger(ctx, o, d, &r)
	} else {
		err = measureDeposits(ctx, o, d, &r)
	}
	return r, err
}

// timed runs work and fills r's wall time, processor time and load average around it.
func timed(d database, r *result, work func() error) error {
	loadBefore, cpu0, start := apiload.LoadAverage(), d.cpu(), time.Now()
	err := work()
	r.wall = time.Since(start)
	r.cpu, r.split = d.cpu().since(cpu0)
	r.load = loadBefore + " → " + apiload.LoadAverage()
	return err
}

// measureLedger posts transfers through the commit pipeline for o.duration.
func measureLedger(ctx context.Context, o options, d database, r *result) error {
	db, err := postgres.Open(ctx, d.url, postgres.Options{MaxOpenConns: 40})
	if err != nil {
		return err
	}
	defer db.Close()
	// The store the service builds (wiring's newStore): on Citus its batches hold one tenant's
	// units and its writes take the Citus paths. A store that did not know it was on Citus ran
	// PostgreSQL's single write statement there, which Citus runs through the coordinator with
	// its rows sent to every worker and two-phase commit: the benchmark measured that path.
	store := postgres.NewStore(db)
	if d.citus {
		store = store.ForCitus()
	}
	tenants, err := openTenants(ctx, store, o.accounts)
	if err != nil {
		return err
	}
	pipe := store.WithPipeline(postgres.PipelineOptions{})
	defer pipe.Close()
	var posted, seq atomic.Int64
	var failed atomic.Pointer[error]
	deadline := time.Now().Add(o.duration)
	return timed(d, r, func() error {
		var wg sync.WaitGroup
		for range o.concurrency {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) && ctx.Err() == nil && failed.Load() == nil {
					i := rand.IntN(len(tenants))
					pair := tenants[i]
					spec := ledger.TransferSpec{Reference: fmt.Sprintf("bench:%d", seq.Add(1)), Type: ledger.TypePosted,
						Environment: core.EnvTest, Asset: ledger.AssetUSDC, Postings: ledger.Move(pair[0], pair[1], 1)}
					// The tenant's affinity, as the API's middleware marks a request's units.
					unit := ports.WithAffinity(ctx, tenantName(i))
					err := pipe.InTx(unit, func(ctx context.Context, tx ports.Tx) error {
						_, _, err := tx.Ledger().Post(ctx, time.Now(), spec)
						return err
					})
					if err != nil {
						failed.Store(&err)
						return
					}
					posted.Add(1)
				}
			}()
		}
		wg.Wait()
		r.transfers = int(posted.Load())
		if e := failed.Load(); e != nil {
			return *e
		}
		return ctx.Err()
	})
}

// openTenants opens, for each of n tenants, its available account and its share of the
// sandbox pool (which may go negative, as a sandbox deposit's source does): a transfer between
// the two is one tenant's, booked in its home alone, like every money path since the split
// (on a distributed ledger, one shard group).
func openTenants(ctx context.Context, store *postgres.Store, n int) ([][2]string, error) {
	pairs := make([][2]string, 0, n)
	err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var specs []ledger.AccountSpec
		for i := range n {
			tenant := tenantName(i)
			specs = append(specs, ledger.Share(ledger.PlatformSandboxPool(core.EnvTest, ledger.AssetUSDC), tenant),
				ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, tenant))
		}
		accts, err := tx.Ledger().OpenAccounts(ctx, time.Now(), specs...)
		for i := 0; err == nil && i+1 < len(accts); i += 2 {
			pairs = append(pairs, [2]string{accts[i].ID, accts[i+1].ID})
		}
		return err
	})
	return pairs, err
}

// tenantName is the ledger workload's i-th tenant.
func tenantName(i int) string { return fmt.Sprintf("ten_bench%04d", i) }

// measureDeposits sends o.deposits idempotent deposits through one replica of the service.
func measureDeposits(ctx context.Context, o options, d database, r *result) error {
	base, stopReplica, err := apiload.StartReplica(ctx, d.url, false)
	if err != nil {
		return err
	}
	defer stopReplica()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: o.clients}}
	keys := make([]string, o.tenants)
	for i := range keys {
		if keys[i], err = apiload.NewTenant(client, base); err != nil {
			return err
		}
	}
	var next atomic.Int64
	var failed atomic.Pointer[error]
	return timed(d, r, func() error {
		var wg sync.WaitGroup
		for range o.clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil && failed.Load() == nil {
					n := next.Add(1)
					if n > int64(o.deposits) {
						return
					}
					if err := apiload.Deposit(client, base, keys[int(n)%len(keys)], n); err != nil {
						failed.Store(&err)
						return
					}
				}
			}()
		}
		wg.Wait()
		r.transfers = o.deposits
		if e := failed.Load(); e != nil {
			return *e
		}
		return ctx.Err()
	})
}
