package jobs

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Outcomes of a worked job, the outcome label of corridor_job_runs_total.
const (
	outcomeOK      = "ok"      // the job finished
	outcomeSnoozed = "snoozed" // the job asked to run again later (a poll that found nothing new)
	outcomeFailed  = "failed"  // the job returned an error or panicked: River retries or discards it
)

// workMetrics counts every worked job by kind and outcome, at the source: the scrape-time
// queue gauges (adapters/metrics) show what waits, these show what went wrong and how often.
type workMetrics struct {
	runs *prometheus.CounterVec
}

func newWorkMetrics(reg prometheus.Registerer) (*workMetrics, error) {
	m := &workMetrics{runs: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "corridor_job_runs_total",
		Help: "Worked River jobs by kind and outcome (ok, snoozed, failed); outcome=\"failed\" is the failures per kind.",
	}, []string{"kind", "outcome"})}
	if reg == nil {
		return m, nil
	}
	return m, reg.Register(m.runs)
}

// observeWork is the River worker middleware that counts outcomes; a panicking job counts as
// failed and its panic goes on to River, which records it on the job.
type observeWork struct {
	river.MiddlewareDefaults
	metrics *workMetrics
}

var _ rivertype.WorkerMiddleware = (*observeWork)(nil)

// Work runs the job and counts its outcome.
func (o *observeWork) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	outcome := outcomeFailed
	defer func() { o.metrics.runs.WithLabelValues(job.Kind, outcome).Inc() }()
	err := doInner(ctx)
	outcome = outcomeOf(err)
	return err
}

func outcomeOf(err error) string {
	var snooze *rivertype.JobSnoozeError
	switch {
	case err == nil:
		return outcomeOK
	case errors.As(err, &snooze):
		return outcomeSnoozed
	default:
		return outcomeFailed
	}
}

// registerPoolMetrics reports the workers' own pool beside the service's (go_sql_* from
// database/sql): connections in use, and acquires that had to wait for one.
func registerPoolMetrics(reg prometheus.Registerer, pool *pgxpool.Pool) error {
	if reg == nil {
		return nil
	}
	inUse := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "corridor_jobs_pool_in_use_connections",
		Help: "Connections of the job workers' pool in use."}, func() float64 { return float64(pool.Stat().AcquiredConns()) })
	waits := prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "corridor_jobs_pool_waits_total",
		Help: "Acquires from the job workers' pool that waited for a connection."}, func() float64 { return float64(pool.Stat().EmptyAcquireCount()) })
	if err := reg.Register(inUse); err != nil {
		return err
	}
	return reg.Register(waits)
}
