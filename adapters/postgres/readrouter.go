package postgres

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// ReadRouterOptions configure a ReadRouter.
type ReadRouterOptions struct {
	// MaxLag is the replay lag past which marked reads go to the primary (DATABASE_READ_MAX_LAG;
	// 0: 5 s).
	MaxLag time.Duration
	// CheckEvery is how long one lag measurement is trusted (0: 500 ms); a marked read after
	// that measures again.
	CheckEvery time.Duration
	// Metrics are the registered collectors the router reports to (nil: unregistered ones).
	Metrics *ReadMetrics
}

// ReadRouter is the unit of work with a read replica (docs/decisions/scaling.md): a unit of work whose
// context is marked by ports.WithLaggingReads runs on the replica while its replay lag is
// within MaxLag, and every other unit runs on the primary. A marked unit that tries to write
// (the standby refuses, SQLSTATE 25006) or meets a failing standby runs again on the primary,
// so a marked route that happens to write, or a standby that goes away, costs time, not an
// error.
type ReadRouter struct {
	primary ports.Store
	replica *Store
	opts    ReadRouterOptions

	mu       sync.Mutex
	lag      time.Duration // the last measurement; math.MaxInt64 when unknown or not streaming
	measured time.Time

	reads *prometheus.CounterVec
}

var _ ports.Store = (*ReadRouter)(nil)

// Lagging is the lag recorded when the replica cannot say how far behind it is (it does not
// answer, or does not stream from the primary).
const Lagging = time.Duration(math.MaxInt64)

// NewReadRouter routes marked reads to replica (a pool on the standby) and the rest to primary.
func NewReadRouter(primary ports.Store, replica *bun.DB, opts ReadRouterOptions) *ReadRouter {
	if opts.MaxLag <= 0 {
		opts.MaxLag = 5 * time.Second
	}
	if opts.CheckEvery <= 0 {
		opts.CheckEvery = 500 * time.Millisecond
	}
	r := &ReadRouter{primary: primary, replica: NewStore(replica), opts: opts, lag: Lagging}
	if opts.Metrics == nil {
		opts.Metrics = NewReadMetrics()
	}
	opts.Metrics.router.Store(r)
	r.reads = opts.Metrics.reads
	return r
}

// ReadMetrics are the read replica's collectors. They are described whether or not a replica is
// configured, so dashboards and alerts may name them everywhere, and collected only once a
// ReadRouter uses them.
type ReadMetrics struct {
	lag    *prometheus.Desc
	reads  *prometheus.CounterVec
	router atomic.Pointer[ReadRouter]
}

var _ prometheus.Collector = (*ReadMetrics)(nil)

// NewReadMetrics returns the collectors, to register once.
func NewReadMetrics() *ReadMetrics {
	return &ReadMetrics{
		lag: prometheus.NewDesc("corridor_db_read_replica_lag_seconds",
			"Replay lag of the read replica (DATABASE_READ_URL), measured at scrape; +Inf when it does not stream from the primary.", nil, nil),
		reads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corridor_db_reads_total",
			Help: "Units of work marked as reads that may lag, by where they ran (replica, primary)."}, []string{"target"}),
	}
}

// Describe implements prometheus.Collector.
func (m *ReadMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.lag
	m.reads.Describe(ch)
}

// Collect measures the lag now (nothing without a replica) and reports the read counts.
func (m *ReadMetrics) Collect(ch chan<- prometheus.Metric) {
	r := m.router.Load()
	if r == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	lag := math.Inf(1)
	if d := r.measure(ctx); d != Lagging {
		lag = d.Seconds()
	}
	ch <- prometheus.MustNewConstMetric(m.lag, prometheus.GaugeValue, lag)
	m.reads.Collect(ch)
}

// Ping checks the primary, which every write needs.
func (r *ReadRouter) Ping(ctx context.Context) error { return r.primary.Ping(ctx) }

// InTx runs fn on the replica when ctx is marked and the replica is within its bound, else on
// the primary. A unit nested in a running one stays in that one's transaction.
func (r *ReadRouter) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	if _, nested := ctx.Value(txKey{}).(bun.Tx); nested || !ports.LaggingReadsAllowed(ctx) {
		return r.primary.InTx(ctx, fn)
	}
	if !r.fresh(ctx) {
		r.reads.WithLabelValues("primary").Inc()
		return r.primary.InTx(ctx, fn)
	}
	err := r.replica.InTx(ctx, fn)
	if r.replicaFailed(ctx, err) {
		r.reads.WithLabelValues("primary").Inc()
		return r.primary.InTx(ctx, fn)
	}
	r.reads.WithLabelValues("replica").Inc()
	return err
}

// replicaFailed reports an error of the standby rather than an answer: it refused a write
// (SQLSTATE 25006), or failed without a domain error (a lost connection, a standby shutting
// down) while the request still runs. The unit then runs on the primary, and the lag is
// measured afresh before the next marked read trusts the standby again. A domain error (a row
// not found) is the standby's answer, within the lag bound.
func (r *ReadRouter) replicaFailed(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "25006" { // read_only_sql_transaction
		return true
	}
	var domain *core.Error
	if errors.As(err, &domain) && domain.Code != core.CodeServiceUnavailable {
		return false
	}
	r.mu.Lock()
	r.measured = time.Time{}
	r.mu.Unlock()
	return true
}

// Lag is the replica's replay lag now (Lagging when unknown).
func (r *ReadRouter) Lag(ctx context.Context) time.Duration { return r.measure(ctx) }

// fresh reports whether the replica's lag, measured at most CheckEvery ago, is within MaxLag.
func (r *ReadRouter) fresh(ctx context.Context) bool {
	r.mu.Lock()
	lag, at := r.lag, r.measured
	r.mu.Unlock()
	if time.Since(at) > r.opts.CheckEvery {
		lag = r.measure(ctx)
	}
	return lag <= r.opts.MaxLag
}

// measure reads the replica's replay lag and records it: zero when it has replayed all it
// received, else the age of the last transaction it replayed. A replica that is not in
// recovery (DATABASE_READ_URL names a primary) has none; one whose WAL receiver does not
// stream cannot know what it misses and counts as Lagging.
func (r *ReadRouter) measure(ctx context.Context) time.Duration {
	var inRecovery, streaming bool
	var caughtUp sql.NullBool
	var ageSeconds sql.NullFloat64
	err := r.replica.db.QueryRowContext(ctx, `SELECT pg_is_in_recovery(),
		coalesce((SELECT status = 'streaming' FROM pg_stat_wal_receiver), false),
		pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn(),
		extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8`).Scan(&inRecovery, &streaming, &caughtUp, &ageSeconds)
	lag := Lagging
	switch {
	case err != nil:
	case !inRecovery:
		lag = 0
	case !streaming:
	case caughtUp.Valid && caughtUp.Bool:
		lag = 0
	case ageSeconds.Valid:
		lag = time.Duration(max(ageSeconds.Float64, 0) * float64(time.Second))
	}
	r.mu.Lock()
	r.lag, r.measured = lag, time.Now()
	r.mu.Unlock()
	return lag
}
