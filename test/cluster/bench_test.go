package cluster

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"corridor/adapters/http"
	"corridor/adapters/pgcluster"
	"corridor/test/harness"
	"corridor/wiring"
)

// BenchmarkCluster_Replicas is the capacity model's measurement (docs/scaling.md, `make
// bench-cluster`): the same mixed load (an idempotent sandbox deposit, a ledger transfer, then
// a balance read) sent round robin to one replica and to three, all in this process against
// one primary, with the rate limits counted in the process or shared in the database. It reports requests and transfers per second of wall time; divide by the
// machine's cores for per-core figures.
func BenchmarkCluster_Replicas(b *testing.B) {
	for _, run := range []struct {
		replicas int
		limits   string
	}{{1, "memory"}, {1, "postgres"}, {3, "postgres"}} {
		replicas := run.replicas
		b.Run(fmt.Sprintf("replicas=%d/limits=%s", replicas, run.limits), func(b *testing.B) {
			ctx := context.Background()
			primary, err := pgcluster.NewThrowaway(ctx, nil)
			if err != nil {
				b.Skipf("no local PostgreSQL: %v", err)
			}
			b.Cleanup(func() { _ = primary.Remove() })
			if err := primary.CreateDatabase(ctx, "corridor"); err != nil {
				b.Fatal(err)
			}
			url := primary.URL("corridor")
			if _, err := wiring.Migrate(ctx, url); err != nil {
				b.Fatal(err)
			}
			unlimited := func(c *wiring.Config) {
				c.SharedRateLimits = run.limits == "postgres"
				c.RateLimit = http.RateLimit{PerSecond: 1e9, Burst: 1_000_000_000}
			}
			envs := make([]*harness.Env, replicas)
			for i := range envs {
				envs[i] = harness.NewServerOn(b, url, unlimited)
			}
			const tenantCount = 16
			keys := make([]string, tenantCount)
			for i := range keys {
				keys[i] = envs[0].NewTenant(b).RootKey
			}
			var seq atomic.Int64
			b.SetParallelism(8)
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					n := seq.Add(1)
					e := envs[int(n)%len(envs)]
					c := e.Client(b).WithKey(keys[int(n)%tenantCount])
					c.With("Idempotency-Key", fmt.Sprintf("bench-%d", n)).
						Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "1"}).Expect(b, 201)
					c.Get("/v1/balances").Expect(b, 200)
				}
			})
			elapsed := time.Since(start).Seconds()
			b.StopTimer()
			b.ReportMetric(float64(2*b.N)/elapsed, "req/s")
			b.ReportMetric(float64(b.N)/elapsed, "transfers/s")
		})
	}
}
