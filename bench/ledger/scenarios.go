package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// scenario is one measured workload: concurrency workers each running units of work back to
// back, each unit posting perUnit two-posting transfers.
type scenario struct {
	name        string
	concurrency int
	perUnit     int
	describe    string
	unit        func(ctx context.Context, w *worker) error
}

// worker is one goroutine's state: its random source, its account partition (batches), and a
// counter that makes every reference unique.
type worker struct {
	index     int
	rand      *rand.Rand
	partition []string
	seq       int
	prefix    string
}

func (w *worker) reference() string {
	w.seq++
	return fmt.Sprintf("%s:%d", w.prefix, w.seq)
}

// pair picks two distinct accounts of from.
func (w *worker) pair(from []string) (string, string) {
	i := w.rand.IntN(len(from))
	j := (i + 1 + w.rand.IntN(len(from)-1)) % len(from)
	return from[i], from[j]
}

// step is one entry of the run: a ledger scenario, then (pgbench > 0) the pgbench ceiling at
// that concurrency right after it (on the hot account when pgbenchHot), so that both see the
// same machine.
type step struct {
	ledger     *scenario
	pgbench    int
	pgbenchHot bool
}

// plan orders the run. Single transfers and the ceiling alternate per concurrency; at
// concurrency 32, which the targets are about, single, ceiling and hot alternate o.rounds
// times and the ratios use the medians, so that a noisy moment on the machine (other work)
// cannot decide them.
func (b *bench) plan() []step {
	single := func(c int) *scenario {
		return &scenario{name: "single", concurrency: c, perUnit: 1, unit: b.single,
			describe: "one POSTED transfer between two random spread accounts per unit of work"}
	}
	var out []step
	for _, c := range []int{1, 8} {
		out = append(out, step{ledger: single(c), pgbench: c})
	}
	hot := func(c int) *scenario {
		return &scenario{name: "hot", concurrency: c, perUnit: 1, unit: b.hotUnit,
			describe: "every transfer debits the same hot account and credits a random spread account"}
	}
	for i := 0; i < max(b.o.rounds, 1); i++ {
		out = append(out, step{ledger: single(32), pgbench: 32}, step{ledger: hot(32), pgbench: 32, pgbenchHot: true})
	}
	out = append(out, step{ledger: single(64), pgbench: 64}, step{ledger: hot(8)})
	// The commit pipeline at concurrency 64, each round beside the one-commit ceiling at 64.
	for i := 0; i < max(b.o.rounds, 1); i++ {
		out = append(out,
			step{ledger: &scenario{name: "pipeline", concurrency: 64, perUnit: 1, unit: b.pipelineUnit,
				describe: "as single, through the store's commit pipeline (units share batches: one locking read for the parked units, transfers decided in memory, one write and one COMMIT per batch)"}, pgbench: 64},
			step{ledger: &scenario{name: "pipeline-hot", concurrency: 64, perUnit: 1, unit: b.pipelineHotUnit,
				describe: "as hot, through the store's commit pipeline"}})
	}
	for _, c := range []int{1, 8} {
		out = append(out, step{ledger: &scenario{name: "batch100", concurrency: c, perUnit: 100, unit: b.batch,
			describe: "100 transfers in one unit of work, each worker within its own slice of the accounts"}})
	}
	return out
}

func (b *bench) post(ctx context.Context, tx ports.Tx, w *worker, from, to string) error {
	spec := ledger.TransferSpec{Reference: w.reference(), Type: ledger.TypePosted, Environment: core.EnvTest,
		Asset: ledger.AssetUSDC, Postings: ledger.Move(from, to, 1+int64(w.rand.IntN(1000)))}
	_, _, err := tx.Ledger().Post(ctx, time.Now(), spec)
	return err
}

func (b *bench) single(ctx context.Context, w *worker) error {
	from, to := w.pair(b.spread)
	return b.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return b.post(ctx, tx, w, from, to) })
}

func (b *bench) hotUnit(ctx context.Context, w *worker) error {
	to := b.spread[w.rand.IntN(len(b.spread))]
	return b.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return b.post(ctx, tx, w, b.hot, to) })
}

func (b *bench) pipelineUnit(ctx context.Context, w *worker) error {
	from, to := w.pair(b.spread)
	return b.pipe.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return b.post(ctx, tx, w, from, to) })
}

func (b *bench) pipelineHotUnit(ctx context.Context, w *worker) error {
	to := b.spread[w.rand.IntN(len(b.spread))]
	return b.pipe.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return b.post(ctx, tx, w, b.hot, to) })
}

// batch posts 100 transfers in one unit of work. Workers use disjoint slices of the accounts,
// as a batch import per tenant would; concurrent batches over the same rows would lock them
// in transfer order and could deadlock (and be retried), which measures something else.
func (b *bench) batch(ctx context.Context, w *worker) error {
	return b.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		for i := 0; i < 100; i++ {
			from, to := w.pair(w.partition)
			if err := b.post(ctx, tx, w, from, to); err != nil {
				return err
			}
		}
		return nil
	})
}

// result is one scenario's measurement.
type result struct {
	Name               string  `json:"name"`
	Concurrency        int     `json:"concurrency"`
	TransfersPerUnit   int     `json:"transfersPerUnit"`
	Describe           string  `json:"describe"`
	Transfers          int     `json:"transfers"`
	Units              int     `json:"units"`
	Errors             int     `json:"errors"`
	Seconds            float64 `json:"seconds"`
	TransfersPerSecond float64 `json:"transfersPerSecond"`
	P50Ms              float64 `json:"p50Ms"`
	P99Ms              float64 `json:"p99Ms"`
	// Processor time per transfer over the measured window: PostgreSQL's (postmaster and
	// backends) and this Go process's. Zero when the cluster is not local.
	ServerCPUMsPerTransfer float64 `json:"serverCpuMsPerTransfer"`
	ClientCPUMsPerTransfer float64 `json:"clientCpuMsPerTransfer"`
}

// measure runs a scenario: a warm-up, then o.duration during which every unit's latency is
// recorded. Throughput counts transfers of units that completed inside the measured window.
func (b *bench) measure(ctx context.Context, sc scenario) (result, error) {
	// Units run under a context without cancellation, like a request's in the service, so the
	// driver does not watch every query for cancellation; the deadline stops the workers.
	unitCtx := context.WithoutCancel(ctx)
	begin := time.Now().Add(b.o.warmup)
	end := begin.Add(b.o.duration)
	latencies := make([][]time.Duration, sc.concurrency)
	errs := make([]int, sc.concurrency)
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	// Processor time is sampled when the measured window opens and closes.
	samples := make(chan [2]time.Duration, 2)
	sample := func() { samples <- [2]time.Duration{serverCPU(b.dataDir), selfCPU()} }
	opened := time.AfterFunc(time.Until(begin), func() { sample(); time.AfterFunc(time.Until(end), sample) })
	defer opened.Stop()
	for i := 0; i < sc.concurrency; i++ {
		w := &worker{index: i, rand: rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano()))),
			prefix: fmt.Sprintf("bench:%s:%d:%d:%s", sc.name, sc.concurrency, i, core.RandomToken(4))}
		lo, hi := i*len(b.spread)/sc.concurrency, (i+1)*len(b.spread)/sc.concurrency
		w.partition = b.spread[lo:hi]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				start := time.Now()
				if start.After(end) {
					return
				}
				err := sc.unit(unitCtx, w)
				done := time.Now()
				if err != nil {
					errs[w.index]++
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					continue
				}
				if !start.Before(begin) && !done.After(end) {
					latencies[w.index] = append(latencies[w.index], done.Sub(start))
				}
			}
		}()
	}
	wg.Wait()
	res := summarize(sc, latencies, errs, b.o.duration)
	if ctx.Err() == nil {
		first, last := <-samples, <-samples
		res.ServerCPUMsPerTransfer = perTransferMs(last[0]-first[0], res.Transfers)
		res.ClientCPUMsPerTransfer = perTransferMs(last[1]-first[1], res.Transfers)
	}
	return res, firstErrIfAll(firstErr, errs, latencies)
}

// firstErrIfAll fails the scenario only when nothing succeeded; occasional errors are counted.
func firstErrIfAll(err error, errs []int, latencies [][]time.Duration) error {
	for _, l := range latencies {
		if len(l) > 0 {
			return nil
		}
	}
	return err
}

func summarize(sc scenario, latencies [][]time.Duration, errs []int, window time.Duration) result {
	var all []time.Duration
	r := result{Name: sc.name, Concurrency: sc.concurrency, TransfersPerUnit: sc.perUnit, Describe: sc.describe, Seconds: window.Seconds()}
	for i := range latencies {
		all = append(all, latencies[i]...)
		r.Errors += errs[i]
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	r.Units = len(all)
	r.Transfers = r.Units * sc.perUnit
	r.TransfersPerSecond = float64(r.Transfers) / window.Seconds()
	r.P50Ms, r.P99Ms = percentileMs(all, 0.50), percentileMs(all, 0.99)
	return r
}

// percentileMs is the nearest-rank percentile of sorted durations, in milliseconds.
func percentileMs(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.5) - 1
	i = max(0, min(i, len(sorted)-1))
	return float64(sorted[i].Microseconds()) / 1000
}
