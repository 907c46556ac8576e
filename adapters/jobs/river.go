// Package jobs adapts River, the Postgres-backed durable job queue. Jobs are inserted through
// River's database/sql driver inside the caller's Bun transaction (so they commit with the state
// change that needs them) and worked by a client on River's pgx driver.
package jobs

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/ports"
)

// Inserter enqueues jobs inside the caller's Bun transaction (River's database/sql driver).
type Inserter struct {
	client *river.Client[*sql.Tx]
}

var _ ports.Jobs = (*Inserter)(nil)

// NewInserter builds the insert-only client over the Bun handle's *sql.DB.
func NewInserter(db *sql.DB, log *slog.Logger) (*Inserter, error) {
	client, err := river.NewClient(riverdatabasesql.New(db), &river.Config{Logger: riverLogger(log),
		Middleware: []rivertype.Middleware{newTracing()}})
	if err != nil {
		return nil, fmt.Errorf("jobs: insert client: %w", err)
	}
	return &Inserter{client: client}, nil
}

// Enqueue inserts the job in the transaction the context carries.
func (q *Inserter) Enqueue(ctx context.Context, args ports.JobArgs, opts ports.JobOptions) error {
	btx, ok := postgres.TxFromContext(ctx)
	if !ok {
		return errors.New("jobs: Enqueue outside a unit of work: jobs must commit with their state change")
	}
	ins := &river.InsertOpts{MaxAttempts: opts.MaxAttempts, ScheduledAt: opts.ScheduledAt, Queue: opts.Queue}
	if opts.UniqueFor > 0 {
		ins.UniqueOpts = river.UniqueOpts{ByArgs: true, ByPeriod: opts.UniqueFor}
	}
	_, err := q.client.InsertTx(ctx, btx.Tx, args, ins)
	return err
}

// Runner works jobs on River's pgx driver with its own pool.
type Runner struct {
	client *river.Client[pgx.Tx]
	pool   *pgxpool.Pool
	// running is true between Start and Stop: readiness fails outside it.
	running atomic.Bool
	live    *liveness
	// stopLive ends the heartbeat loop; liveDone closes when it has ended.
	stopLive context.CancelFunc
	liveDone chan struct{}
}

// Config sets up the worker side.
type Config struct {
	DatabaseURL  string
	Workers      *river.Workers
	PeriodicJobs []*river.PeriodicJob
	MaxWorkers   int // per default queue; 0 = 10
	// TextsWorkers work ports.QueueTexts beside the default queue; 0 = DefaultTextsWorkers.
	TextsWorkers int
	Logger       *slog.Logger
	// FetchPollInterval bounds job pickup latency when LISTEN/NOTIFY is unavailable.
	FetchPollInterval time.Duration
	// StatementTimeout and IdleInTransactionTimeout are set on every connection of the
	// workers' pool, as on the service's (postgres.Options; zero takes the defaults).
	StatementTimeout         time.Duration
	IdleInTransactionTimeout time.Duration
	// Metrics, when set, receives corridor_job_runs_total (jobs worked by kind and outcome).
	Metrics prometheus.Registerer
	// Middleware wraps every worked job inside the metrics and tracing middleware.
	Middleware []rivertype.Middleware
	// RescueStuckAfter is how long a job may stay running before it is taken as stuck (its
	// worker was killed) and retried; zero keeps River's hour.
	RescueStuckAfter time.Duration
	// Replica names this replica across restarts (unique per running process); a new process
	// with the name rescues at once the jobs its previous incarnation held. Empty: a random
	// name, so only the heartbeat notices a dead predecessor.
	Replica string
	// HeartbeatEvery and DeadAfter tune the worker liveness (zero takes DefaultHeartbeatEvery
	// and DefaultDeadAfter): a worker whose heartbeat is older than DeadAfter is dead, and its
	// running jobs go back to work.
	HeartbeatEvery time.Duration
	DeadAfter      time.Duration
}

// DefaultTextsWorkers is how many texts one replica sends at once: a text is one short gateway
// call, so two keep up with bursts while the default queue is busy.
const DefaultTextsWorkers = 2

// queues are the queues a runner works: the default one and the texts' own (ports.QueueTexts),
// so a text never waits behind the default queue's backlog.
func queues(cfg Config) map[string]river.QueueConfig {
	return map[string]river.QueueConfig{
		river.QueueDefault: {MaxWorkers: cfg.MaxWorkers},
		ports.QueueTexts:   {MaxWorkers: cmp.Or(cfg.TextsWorkers, DefaultTextsWorkers)},
	}
}

// defaultJobTimeout bounds a job whose worker sets no time-out of its own.
const defaultJobTimeout = 2 * time.Minute

// NewRunner builds the worker client.
func NewRunner(ctx context.Context, cfg Config) (*Runner, error) {
	if cfg.Workers == nil {
		return nil, errors.New("jobs: Workers is required")
	}
	if cfg.MaxWorkers <= 0 {
		cfg.MaxWorkers = 10
	}
	if cfg.FetchPollInterval <= 0 {
		cfg.FetchPollInterval = time.Second
	}
	poolConfig, err := pgxpool.ParseConfig(cfg.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("jobs: pool: %w", err)
	}
	timeouts := postgres.Options{StatementTimeout: cfg.StatementTimeout, IdleInTransactionTimeout: cfg.IdleInTransactionTimeout}
	for name, value := range timeouts.ServerTimeouts() {
		poolConfig.ConnConfig.RuntimeParams[name] = value
	}
	work, err := newWorkMetrics(cfg.Metrics)
	if err != nil {
		return nil, fmt.Errorf("jobs: metrics: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, poolConfig)
	if err != nil {
		return nil, fmt.Errorf("jobs: pool: %w", err)
	}
	if err := registerPoolMetrics(cfg.Metrics, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("jobs: metrics: %w", err)
	}
	live := newLiveness(pool, cfg)
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		ID: live.clientID,
		Middleware: append([]rivertype.Middleware{&observeWork{metrics: work}, &continueTrace{}, newTracing(),
			&singleFlight{pool: pool, log: live.log, clientID: live.clientID}}, cfg.Middleware...),
		Queues:               queues(cfg),
		Workers:              cfg.Workers,
		PeriodicJobs:         cfg.PeriodicJobs,
		Logger:               riverLogger(cfg.Logger),
		FetchPollInterval:    cfg.FetchPollInterval,
		JobTimeout:           min(defaultJobTimeout, cmp.Or(cfg.RescueStuckAfter, defaultJobTimeout)),
		RescueStuckJobsAfter: cfg.RescueStuckAfter,
	})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("jobs: worker client: %w", err)
	}
	return &Runner{client: client, pool: pool, live: live}, nil
}

// newLiveness fills the liveness defaults; a replica without a name gets a random one.
func newLiveness(pool *pgxpool.Pool, cfg Config) *liveness {
	replica := cfg.Replica
	if replica == "" {
		replica = "anonymous-" + leaseHolder("")[1:9]
	}
	return &liveness{pool: pool, log: cmp.Or(cfg.Logger, slog.Default()), clientID: clientIDFor(replica), replica: replica,
		every: cmp.Or(cfg.HeartbeatEvery, DefaultHeartbeatEvery), deadAfter: cmp.Or(cfg.DeadAfter, DefaultDeadAfter)}
}

// ClientID is this process's worker name in River's attempted_by and in job_workers.
func (r *Runner) ClientID() string { return r.live.clientID }

// Start registers the worker (rescuing its replica's previous incarnation's jobs), runs the
// workers and the heartbeat until Stop.
func (r *Runner) Start(ctx context.Context) error {
	if err := r.live.start(ctx); err != nil {
		return fmt.Errorf("jobs: registering the worker: %w", err)
	}
	if err := r.client.Start(ctx); err != nil {
		return err
	}
	liveCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	r.stopLive, r.liveDone = stop, make(chan struct{})
	go func() { defer close(r.liveDone); r.live.run(liveCtx) }()
	r.running.Store(true)
	return nil
}

// Ready reports whether the workers can take jobs: they run, and their own pool reaches the
// database (a worker pool that cannot connect leaves every job waiting while the API answers).
func (r *Runner) Ready(ctx context.Context) error {
	if !r.running.Load() {
		return errors.New("the job workers are not running")
	}
	if err := r.pool.Ping(ctx); err != nil {
		return fmt.Errorf("the job workers' database pool: %w", err)
	}
	return nil
}

// Stop lets running jobs finish (up to ctx's deadline) and closes the pool.
func (r *Runner) Stop(ctx context.Context) error {
	r.running.Store(false)
	err := r.client.Stop(ctx)
	if r.stopLive != nil {
		r.stopLive()
		<-r.liveDone
		r.live.stop(ctx)
	}
	r.pool.Close()
	return err
}

// Migrate applies River's own schema migrations (its job tables), after the project's.
func Migrate(ctx context.Context, url string) error {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return err
	}
	_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	return err
}

// riverLogger is log for River's own records at Warn and above: River reports routine state at
// Info (a producer's job counts every few seconds), which would drown the service's log. With
// the service at Debug, everything passes.
func riverLogger(log *slog.Logger) *slog.Logger {
	if log == nil {
		return nil
	}
	return slog.New(atLeast{Handler: log.Handler(), min: slog.LevelWarn})
}

// atLeast passes a record when it is at min or above, or when the wrapped handler is at Debug.
type atLeast struct {
	slog.Handler
	min slog.Level
}

func (h atLeast) Enabled(ctx context.Context, level slog.Level) bool {
	if h.Handler.Enabled(ctx, slog.LevelDebug) {
		return true
	}
	return level >= h.min && h.Handler.Enabled(ctx, level)
}

func (h atLeast) WithAttrs(attrs []slog.Attr) slog.Handler {
	return atLeast{Handler: h.Handler.WithAttrs(attrs), min: h.min}
}

func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{Handler: h.Handler.WithGroup(name), min: h.min}
}
