package postgres

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// pipelineMetrics are the commit pipeline's histograms: how many units of work share a COMMIT,
// how long a batch stays open before it commits, how long its write and COMMIT take, and, per
// unit, how long it waited to join a batch and how long it spent in the pipeline in all (from
// its submission to its answer: the latency the pipeline adds to a request, whose tail the
// batch figures alone do not show).
type pipelineMetrics struct {
	units  prometheus.Histogram
	open   prometheus.Histogram
	commit prometheus.Histogram
	// join is a unit's wait from its submission to the first batch that admits it; unit is its
	// time from submission to its answer (carried to a later batch, run alone, or not).
	join, unit prometheus.Histogram
	// spills count units whose affinity's lane did not take them within the patience.
	spills prometheus.Counter
}

// unitBuckets resolve a unit's latency finely enough to read a p99 of tens of milliseconds.
var unitBuckets = []float64{.0005, .001, .002, .003, .004, .005, .006, .008, .01, .012, .015, .02, .025, .03, .035, .04, .05,
	.06, .075, .1, .125, .15, .2, .3, .5, 1, 2.5}

func newPipelineMetrics() *pipelineMetrics {
	return &pipelineMetrics{
		units: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "corridor_pipeline_batch_units",
			Help:    "Units of work per commit-pipeline batch (one COMMIT each).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}}),
		open: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "corridor_pipeline_batch_wait_seconds",
			Help:    "Time from a commit-pipeline batch's BEGIN to its COMMIT: the wait its units share.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1}}),
		commit: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "corridor_pipeline_batch_commit_seconds",
			Help:    "Time a commit-pipeline batch's write and COMMIT took (the exchange that waits for the WAL flush).",
			Buckets: unitBuckets}),
		join: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "corridor_pipeline_unit_join_seconds",
			Help:    "Time from a unit of work's submission to the commit-pipeline batch that first admitted it.",
			Buckets: unitBuckets}),
		unit: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "corridor_pipeline_unit_seconds",
			Help:    "Time from a unit of work's submission to the commit pipeline until it was answered (after its batch's COMMIT).",
			Buckets: unitBuckets}),
		spills: prometheus.NewCounter(prometheus.CounterOpts{Name: "corridor_pipeline_affinity_spills_total",
			Help: "Units of work whose affinity's lane did not take them within the patience, so any lane could."}),
	}
}

// observe records one batch that reached its COMMIT (or its rollback when no unit was kept).
func (m *pipelineMetrics) observe(units int, openedAt time.Time) {
	m.units.Observe(float64(units))
	m.open.Observe(time.Since(openedAt).Seconds())
}

// joined records a unit's wait to join its first batch.
func (m *pipelineMetrics) joined(submitted time.Time) {
	m.join.Observe(time.Since(submitted).Seconds())
}

// answered records a unit's time in the pipeline.
func (m *pipelineMetrics) answered(submitted time.Time) {
	m.unit.Observe(time.Since(submitted).Seconds())
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
	reruns := func(why string, read func(PipelineStats) int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "corridor_pipeline_unit_reruns_total",
			Help:        "Units of work the commit pipeline ran again: carried to the lane's next batch after meeting a held lock, or run alone after their batch's write or COMMIT was refused.",
			ConstLabels: prometheus.Labels{"why": why}}, func() float64 { return float64(read(s.PipelineStats())) })
	}
	return []prometheus.Collector{m.units, m.open, m.commit, m.join, m.unit, m.spills, lanes,
		wait("units", func(st PipelineStats) time.Duration { return st.LaneWaitUnits }),
		wait("commit", func(st PipelineStats) time.Duration { return st.LaneWaitCommit }),
		reruns("carried", func(st PipelineStats) int64 { return st.Conflicts }),
		reruns("alone", func(st PipelineStats) int64 { return st.Retried })}
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
