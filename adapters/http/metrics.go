package http

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics holds the Prometheus collectors of the HTTP layer. They are registered on the
// service's registry (Config.Metrics), which the separate metrics listener serves; the public
// API port never serves them.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	// series are the children of the two vectors by label values, looked up once: the vectors'
	// own lookup hashes the label values and formats the status on every request. It holds
	// what the vectors hold (routes are templates, so the set is bounded the same way).
	mu     sync.RWMutex
	series map[seriesKey]series
}

type seriesKey struct {
	method, route string
	status        int
}

type series struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corridor_http_requests_total", Help: "HTTP requests by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "corridor_http_request_duration_seconds", Help: "HTTP request latency by method and route pattern.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route"}),
		series: map[seriesKey]series{},
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.requests, m.latency} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *metrics) observe(method, route string, status int, d time.Duration) {
	key := seriesKey{method: method, route: route, status: status}
	m.mu.RLock()
	ser, ok := m.series[key]
	m.mu.RUnlock()
	if !ok {
		// The map keeps the method beyond the request: a copy of its own.
		method = strings.Clone(method)
		key.method = method
		ser = series{requests: m.requests.WithLabelValues(method, route, strconv.Itoa(status)),
			latency: m.latency.WithLabelValues(method, route)}
		m.mu.Lock()
		m.series[key] = ser
		m.mu.Unlock()
	}
	ser.requests.Inc()
	ser.latency.Observe(d.Seconds())
}
