package postgres

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// pipelineMetrics are the commit pipeline's histograms: how many units of work share a COMMIT,
// and how long a batch stays open before it commits (the latency the pipeline adds to a unit).
type pipelineMetrics struct {
	units prometheus.Histogram
	open  prometheus.Histogram
}

func newPipelineMetrics() *pipelineMetrics {
	return &pipelineMetrics{
		units: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "corridor_pipeline_batch_units",
			Help:    "Units of work per commit-pipeline batch (one COMMIT each).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}}),
		open: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "corridor_pipeline_batch_wait_seconds",
			Help:    "Time from a commit-pipeline batch's BEGIN to its COMMIT: the wait its units share.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1}}),
	}
}

// observe records one batch that reached its COMMIT (or its rollback when no unit was kept).
func (m *pipelineMetrics) observe(units int, openedAt time.Time) {
	m.units.Observe(float64(units))
	m.open.Observe(time.Since(openedAt).Seconds())
}

// PipelineCollectors are the pipeline's histograms and the lanes' time for the metrics
// registry. Without a pipeline they stay empty (zero), so dashboards and alerts see the same
// names either way.
func (s *Store) PipelineCollectors() []prometheus.Collector {
	m := s.pipelineMetrics()
	seconds := func(read func(PipelineStats) time.Duration) func() float64 {
		return func() float64 { return read(s.PipelineStats()).Seconds() }
	}
	lanes := prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "corridor_pipeline_lane_seconds_total",
		Help: "Time the commit pipeline's lanes have run, summed over the lanes (counted as each batch ends)."},
		seconds(func(st PipelineStats) time.Duration { return st.LaneTime }))
	wait := func(state string, read func(PipelineStats) time.Duration) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "corridor_pipeline_lane_wait_seconds_total",
			Help:        "Time the commit pipeline's lanes waited, summed over the lanes: for units of work to arrive, or for a COMMIT to return.",
			ConstLabels: prometheus.Labels{"for": state}}, seconds(read))
	}
	return []prometheus.Collector{m.units, m.open, lanes,
		wait("units", func(st PipelineStats) time.Duration { return st.LaneWaitUnits }),
		wait("commit", func(st PipelineStats) time.Duration { return st.LaneWaitCommit })}
}

func (s *Store) pipelineMetrics() *pipelineMetrics {
	if s.pipe != nil {
		return s.pipe.metrics
	}
	if s.idleMetrics == nil {
		s.idleMetrics = newPipelineMetrics()
	}
	return s.idleMetrics
}
