package metrics

import "github.com/prometheus/client_golang/prometheus"

// Dependency is one outside dependency's health as the metric reports it.
type Dependency struct {
	Name string // "payout:wallet_a", "sms", "card_issuer"
	Kind string // payout_provider, sms, card_issuer
	Up   bool
}

var dependencyUpDesc = prometheus.NewDesc("corridor_dependency_up",
	"1 while the outside dependency (a payout provider, the SMS gateway, the card issuer) answers its calls, 0 once several calls in a row got no answer. Never part of readiness.",
	[]string{"dependency", "kind"}, nil)

// DependencyCollector reports corridor_dependency_up from the service's record of its calls'
// outcomes: no call is made at scrape time (a scrape must not page a vendor).
type DependencyCollector struct{ read func() []Dependency }

// NewDependencyCollector reports what read returns at each scrape.
func NewDependencyCollector(read func() []Dependency) *DependencyCollector {
	return &DependencyCollector{read: read}
}

// Describe sends the one metric family.
func (c *DependencyCollector) Describe(ch chan<- *prometheus.Desc) { ch <- dependencyUpDesc }

// Collect sends one series per dependency.
func (c *DependencyCollector) Collect(ch chan<- prometheus.Metric) {
	for _, d := range c.read() {
		up := 0.0
		if d.Up {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(dependencyUpDesc, prometheus.GaugeValue, up, d.Name, d.Kind)
	}
}
