package wiring

import (
	"context"
	nethttp "net/http"
	"regexp"
	"sort"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/adapters/jobs"
	"github.com/corridorhq/corridor/adapters/metrics"
	"github.com/corridorhq/corridor/adapters/outside"
	"github.com/corridorhq/corridor/adapters/postgres"
	webhooksender "github.com/corridorhq/corridor/adapters/webhook"
	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// observability is the service's metrics registry with the collectors that read the database,
// the pool, the pipeline and the chains; the HTTP layer, the job workers and the webhook sender
// add their counters to it as they are built.
type observability struct {
	registry *prometheus.Registry
}

func newObservability(db *bun.DB, store *postgres.Store, chains map[core.Environment]ports.Chain, health *outside.Health) (*observability, error) {
	reg := metrics.NewRegistry()
	state, err := metrics.NewStateCollector(metrics.StateConfig{DB: db.DB, Chains: metricChains(chains)})
	if err != nil {
		return nil, err
	}
	// go_sql_* with db_name="corridor": connections in use, idle, and waits for one.
	deps := metrics.NewDependencyCollector(func() []metrics.Dependency {
		var out []metrics.Dependency
		for _, d := range health.Snapshot() {
			out = append(out, metrics.Dependency{Name: d.Name, Kind: d.Kind, Up: d.Status == outside.HealthOK})
		}
		return out
	})
	all := append([]prometheus.Collector{state, deps, collectors.NewDBStatsCollector(db.DB, "corridor")}, store.PipelineCollectors()...)
	for _, c := range all {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return &observability{registry: reg}, nil
}

// webhookSender is the SSRF-checked webhook sender, counting its attempts by outcome.
func (o *observability) webhookSender(cfg webhooks.Config) (webhooks.Sender, error) {
	return metrics.NewCountingSender(webhooksender.New(webhookTimeout(cfg)), o.registry)
}

// handler serves the registry on the metrics listener (METRICS_ADDR).
func (o *observability) handler() nethttp.Handler { return metrics.Handler(o.registry) }

// MetricNames lists every metric family the service's registry describes, whether or not it
// has a series yet, so tests can check that dashboards and alert rules name only metrics that
// exist.
func (s *Service) MetricNames() []string {
	descs := make(chan *prometheus.Desc, 64)
	go func() {
		s.obs.registry.Describe(descs)
		close(descs)
	}()
	var names []string
	for d := range descs {
		if m := fqName.FindStringSubmatch(d.String()); m != nil {
			names = append(names, m[1])
		}
	}
	sort.Strings(names)
	return names
}

// fqName reads a Desc's name from its String form, the only place client_golang shows it.
var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

// metricChains lists the configured chains in a fixed order (TEST, then LIVE).
func metricChains(chains map[core.Environment]ports.Chain) []metrics.Chain {
	var out []metrics.Chain
	for _, env := range sortedEnvironments(chains) {
		out = append(out, metrics.Chain{Environment: string(env), Chain: chains[env]})
	}
	return out
}

func sortedEnvironments(chains map[core.Environment]ports.Chain) []core.Environment {
	envs := make([]core.Environment, 0, len(chains))
	for env := range chains {
		envs = append(envs, env)
	}
	sort.Slice(envs, func(i, j int) bool { return envs[i] > envs[j] }) // TEST before LIVE
	return envs
}

// readinessChecks are what /readyz looks at besides the database: the job workers run with a
// pool that reaches the database (required), and every configured chain's node answers (a
// dependency: a silent node degrades the chain routes to 503 CHAIN_UNAVAILABLE but leaves the
// replica ready, since every replica shares the node). An unconfigured chain is not checked: its
// environment answers CHAIN_UNAVAILABLE by design (docs/decisions/tenancy.md).
func readinessChecks(chains map[core.Environment]ports.Chain, runner *jobs.Runner) []http.ReadinessCheck {
	out := []http.ReadinessCheck{{Name: "jobs", Check: runner.Ready, Problem: "the job workers cannot take jobs"}}
	for _, env := range sortedEnvironments(chains) {
		c := chains[env]
		out = append(out, http.ReadinessCheck{Name: "chain:" + string(env), Problem: "the chain's node does not answer", Dependency: true,
			Check: func(ctx context.Context) error { _, err := c.LatestBlock(ctx); return err }})
	}
	return out
}

// dependencyReport reads the outside dependencies' health for the status report.
func dependencyReport(h *outside.Health) func() []finance.DependencyHealth {
	return func() []finance.DependencyHealth {
		snap := h.Snapshot()
		out := make([]finance.DependencyHealth, len(snap))
		for i, d := range snap {
			out[i] = finance.DependencyHealth{Name: d.Name, Kind: d.Kind, Status: d.Status, Problem: d.Problem}
			if !d.Since.IsZero() {
				since := d.Since
				out[i].Since = &since
			}
		}
		return out
	}
}
