// Package metrics is the Prometheus adapter: the registry every other adapter adds its
// collectors to, the handler served on the separate metrics listener (METRICS_ADDR, never the
// public API port), and the collector that reads the service's state from PostgreSQL and the
// chains at scrape time, bounded by a deadline and a minimum interval between reads.
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// NewRegistry returns a registry with the Go runtime and process collectors: one registry per
// service, so a test server's metrics never mix with another's.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Handler serves reg in the Prometheus text format. A collector that fails is reported in the
// scrape's errors and the rest still answers, so one unreadable source never blinds the others.
func Handler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, Timeout: scrapeTimeout})
}
