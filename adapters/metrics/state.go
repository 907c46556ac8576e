package metrics

import (
	"context"
	"database/sql"
	"errors"
	"math/big"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ports"
)

// Bounds of the scrape-time reads.
const (
	// scrapeTimeout bounds one whole read of the state (every query and chain call together):
	// a source that has not answered by then is reported down for this scrape.
	scrapeTimeout = 4 * time.Second
	// DefaultMinInterval is how long a read is reused: scrapes closer together (two
	// Prometheus servers, a person with curl) cost the database nothing more.
	DefaultMinInterval = 5 * time.Second
	// DefaultStuckAfter is how long a relayer transaction may stay unmined before it counts as
	// stuck: the fee-bump pass replaces it after RELAYER_BUMP_AFTER (2 minutes), so ten
	// minutes means several replacements did not get it mined.
	DefaultStuckAfter = 10 * time.Minute
)

// Chain is one configured chain the collector reads: its head, the ledger mirror's cursor and
// the relayer's balance.
type Chain struct {
	Environment string
	Chain       ports.Chain
}

// StateConfig configures the state collector; zero durations take the defaults above.
type StateConfig struct {
	DB          *sql.DB
	Chains      []Chain
	StuckAfter  time.Duration
	MinInterval time.Duration
}

// StateCollector reads the job queue, webhook endpoints, off-ramp payments, relayer
// transactions, the ledger's transfer count and the chains when Prometheus scrapes, at most
// once per MinInterval, within scrapeTimeout. Every query reads an indexed subset (unfinished
// jobs, unsettled transactions, non-terminal payments, disabled endpoints), never a history.
type StateCollector struct {
	cfg    StateConfig
	mu     sync.Mutex
	readAt time.Time
	cached []prometheus.Metric
	drift  driftState // guarded by mu, like every read
}

var _ prometheus.Collector = (*StateCollector)(nil)

// NewStateCollector checks the configuration and fills the defaults.
func NewStateCollector(cfg StateConfig) (*StateCollector, error) {
	if cfg.DB == nil {
		return nil, errors.New("metrics: the state collector needs a database")
	}
	if cfg.StuckAfter <= 0 {
		cfg.StuckAfter = DefaultStuckAfter
	}
	if cfg.MinInterval <= 0 {
		cfg.MinInterval = DefaultMinInterval
	}
	return &StateCollector{cfg: cfg}, nil
}

var (
	jobsDesc = prometheus.NewDesc("corridor_jobs", "Unfinished and discarded River jobs by kind and state; state=\"available\" is the queue's depth.",
		[]string{"kind", "state"}, nil)
	oldestJobDesc = prometheus.NewDesc("corridor_jobs_oldest_available_age_seconds", "Age of the oldest job that is available to work but not picked up, by kind.",
		[]string{"kind"}, nil)
	webhookBacklogDesc = prometheus.NewDesc("corridor_webhook_backlog_age_seconds", "How long the oldest due webhook delivery (PENDING, its attempt time passed) has waited past its attempt time, by environment; 0 when none is due.",
		[]string{"environment"}, nil)
	endpointsDisabledDesc = prometheus.NewDesc("corridor_webhook_endpoints_disabled", "Webhook endpoints the service disabled after failing for the whole retry window (not those a tenant switched off), by environment.",
		[]string{"environment"}, nil)
	twofactorLockedDesc = prometheus.NewDesc("corridor_twofactor_locked", "Two-factor failure budgets (a tenant's environment, or one factor) locked right now after too many wrong codes, by environment.",
		[]string{"environment"}, nil)
	offrampDesc = prometheus.NewDesc("corridor_offramp_payments", "Off-ramp payments in a non-terminal status, by environment and status.",
		[]string{"environment", "status"}, nil)
	relayerPendingDesc = prometheus.NewDesc("corridor_relayer_pending_transactions", "Relayer nonces sent and not yet mined, by chain.",
		[]string{"chain_id"}, nil)
	relayerStuckDesc = prometheus.NewDesc("corridor_relayer_stuck_transactions", "Relayer nonces unmined for longer than the stuck threshold (10 minutes), by chain.",
		[]string{"chain_id"}, nil)
	relayerBalanceDesc = prometheus.NewDesc("corridor_relayer_balance_eth", "The relayer's gas balance in ETH (a gauge for alerting; never used for money).",
		[]string{"environment", "chain_id"}, nil)
	chainHeadDesc = prometheus.NewDesc("corridor_chain_head_block", "The newest block of the chain's node.",
		[]string{"environment", "chain_id"}, nil)
	indexerLagDesc = prometheus.NewDesc("corridor_chain_indexer_lag_blocks", "Blocks between the chain's head and the last block the ledger mirror indexed.",
		[]string{"environment", "chain_id"}, nil)
	chainUpDesc = prometheus.NewDesc("corridor_chain_up", "1 when the chain's node answered this scrape, 0 otherwise.",
		[]string{"environment", "chain_id"}, nil)
	transfersDesc = prometheus.NewDesc("corridor_ledger_transfers_total", "Ledger transfers committed, by environment (the hash chain's positions; rate() is transfers per second).",
		[]string{"environment"}, nil)
	anchorOpenAgeDesc = prometheus.NewDesc("corridor_ledger_anchor_open_age_seconds", "How long the ledger anchor not yet mined has been waiting since it was recorded; 0 when none waits.",
		nil, nil)
	anchorLastMinedDesc = prometheus.NewDesc("corridor_ledger_anchor_last_mined_timestamp_seconds", "Unix time the newest ledger anchor was recorded as mined; 0 before the first.",
		nil, nil)
	sourceUpDesc = prometheus.NewDesc("corridor_metrics_source_up", "1 when the source's scrape-time read succeeded, 0 when it failed or timed out.",
		[]string{"source"}, nil)
)

// Describe sends every metric the collector may report.
func (c *StateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{jobsDesc, oldestJobDesc, webhookBacklogDesc, endpointsDisabledDesc, twofactorLockedDesc, offrampDesc,
		relayerPendingDesc, relayerStuckDesc, relayerBalanceDesc, chainHeadDesc, indexerLagDesc, chainUpDesc, transfersDesc, sourceUpDesc,
		driftWalletsDesc, driftUSDCDesc, anchorOpenAgeDesc, anchorLastMinedDesc} {
		ch <- d
	}
}

// Collect reads the state (or reuses a read younger than MinInterval) and sends it.
func (c *StateCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cached == nil || time.Since(c.readAt) >= c.cfg.MinInterval {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
		c.cached, c.readAt = c.read(ctx), time.Now()
		cancel()
	}
	for _, m := range c.cached {
		ch <- m
	}
}

// source is one scrape-time read: it appends its metrics to out, or fails as a whole.
type source struct {
	name string
	read func(ctx context.Context, out *[]prometheus.Metric) error
}

// read runs every source and reports each one's success beside its metrics.
func (c *StateCollector) read(ctx context.Context) []prometheus.Metric {
	sources := []source{{"jobs", c.readJobs}, {"webhooks", c.readWebhooks}, {"twofactor", c.readTwoFactor}, {"offramp", c.readOfframp},
		{"relayer", c.readRelayer}, {"ledger", c.readLedger}, {"anchors", c.readAnchors}}
	for _, ch := range c.cfg.Chains {
		sources = append(sources, source{"chain:" + ch.Environment, c.chainReader(ch)})
	}
	var out []prometheus.Metric
	for _, s := range sources {
		var got []prometheus.Metric
		up := 1.0
		if err := s.read(ctx, &got); err != nil {
			up = 0
		} else {
			out = append(out, got...)
		}
		out = append(out, gauge(sourceUpDesc, up, s.name))
	}
	return out
}

func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

// query runs sqlText and hands each row to scan.
func (c *StateCollector) query(ctx context.Context, scan func(*sql.Rows) error, sqlText string, args ...any) error {
	rows, err := c.cfg.DB.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// jobsSQL reads River's unfinished and discarded jobs (the state-led fetching index); completed
// and cancelled jobs, the bulk of the table, are never read.
const jobsSQL = `SELECT kind, state::text, count(*),
	COALESCE(EXTRACT(EPOCH FROM now() - min(scheduled_at) FILTER (WHERE state = 'available')), 0)
FROM river_job WHERE state IN ('available', 'scheduled', 'retryable', 'running', 'discarded')
GROUP BY kind, state`

// readJobs reports each kind's jobs by state, and the age of its oldest available job (0 for
// a kind with none available, so the series stays continuous while the queue drains).
func (c *StateCollector) readJobs(ctx context.Context, out *[]prometheus.Metric) error {
	oldest := map[string]float64{}
	err := c.query(ctx, func(rows *sql.Rows) error {
		var kind, state string
		var count int64
		var oldestSeconds float64
		if err := rows.Scan(&kind, &state, &count, &oldestSeconds); err != nil {
			return err
		}
		*out = append(*out, gauge(jobsDesc, float64(count), kind, state))
		oldest[kind] = max(oldest[kind], oldestSeconds)
		return nil
	}, jobsSQL)
	for kind, seconds := range oldest {
		*out = append(*out, gauge(oldestJobDesc, seconds, kind))
	}
	return err
}

func (c *StateCollector) readWebhooks(ctx context.Context, out *[]prometheus.Metric) error {
	if err := c.perEnvironment(ctx, out, endpointsDisabledDesc, disabledEndpointsSQL); err != nil {
		return err
	}
	return c.perEnvironment(ctx, out, webhookBacklogDesc, webhookBacklogSQL)
}

// perEnvironment reports one gauge per environment from a query answering (environment,
// value) rows, 0 for an environment without a row, so an alert's series stays continuous. A
// negative value reads as 0.
func (c *StateCollector) perEnvironment(ctx context.Context, out *[]prometheus.Metric, desc *prometheus.Desc, query string) error {
	values := map[string]float64{"TEST": 0, "LIVE": 0}
	err := c.query(ctx, func(rows *sql.Rows) error {
		var env string
		var v float64
		err := rows.Scan(&env, &v)
		values[env] = max(v, 0)
		return err
	}, query)
	for env, v := range values {
		*out = append(*out, gauge(desc, v, env))
	}
	return err
}

// disabledEndpointsSQL counts the endpoints the service disabled (not deleted ones).
const disabledEndpointsSQL = `SELECT environment, count(*) FROM webhook_endpoints WHERE NOT enabled AND disabled_reason <> ''
	AND deleted_at IS NULL GROUP BY environment`

// webhookBacklogSQL reads how long the oldest due delivery (PENDING, its attempt time passed)
// has waited past its attempt time, through the partial index of pending deliveries; delivered
// and failed ones, the bulk of the table, are never read. A delivery waiting out its retry
// backoff to a failing endpoint is not due and does not count (CorridorWebhookDeliveriesFailing
// covers those); a due one that keeps ageing means the delivery workers stopped or fell behind,
// which a count of attempts does not show.
const webhookBacklogSQL = `SELECT environment, COALESCE(EXTRACT(EPOCH FROM now() - min(next_attempt_at)), 0)
FROM webhook_deliveries WHERE status = 'PENDING' AND next_attempt_at <= now() GROUP BY environment`

// readTwoFactor counts the failure budgets locked now (through the partial index of budgets
// that ever locked), per environment.
func (c *StateCollector) readTwoFactor(ctx context.Context, out *[]prometheus.Metric) error {
	return c.perEnvironment(ctx, out, twofactorLockedDesc, `SELECT environment, count(*) FROM twofactor_budgets
		WHERE locked_until IS NOT NULL AND locked_until > now() GROUP BY environment`)
}

// watchedStatuses are the off-ramp statuses the gauge reports: every non-terminal one (read
// through the status index); terminal payments only ever grow and need nobody.
func watchedStatuses() []string {
	var out []string
	for _, s := range offramp.Statuses() {
		if !s.Terminal() {
			out = append(out, string(s))
		}
	}
	return out
}

func (c *StateCollector) readOfframp(ctx context.Context, out *[]prometheus.Metric) error {
	statuses := watchedStatuses()
	seen := map[[2]string]bool{}
	err := c.query(ctx, func(rows *sql.Rows) error {
		var env, status string
		var n int64
		if err := rows.Scan(&env, &status, &n); err != nil {
			return err
		}
		seen[[2]string{env, status}] = true
		*out = append(*out, gauge(offrampDesc, float64(n), env, status))
		return nil
	}, `SELECT environment, status, count(*) FROM offramp_payments WHERE status = ANY($1) GROUP BY environment, status`, statuses)
	// A status with no payment reports 0, so an alert's series exists before the first one.
	for _, env := range []string{"TEST", "LIVE"} {
		for _, s := range statuses {
			if !seen[[2]string{env, s}] {
				*out = append(*out, gauge(offrampDesc, 0, env, s))
			}
		}
	}
	return err
}

// relayerSQL counts unsettled nonces (a replacement shares its nonce) through the unsettled
// index, and those whose first send is older than the stuck threshold.
const relayerSQL = `SELECT chain_id, count(*), count(*) FILTER (WHERE first_sent < now() - make_interval(secs => $1))
FROM (SELECT chain_id, min(sent_at) AS first_sent FROM relayer_transactions WHERE settled_at IS NULL
	GROUP BY chain_id, address, nonce) unsettled
GROUP BY chain_id`

func (c *StateCollector) readRelayer(ctx context.Context, out *[]prometheus.Metric) error {
	seen := map[int64]bool{}
	err := c.query(ctx, func(rows *sql.Rows) error {
		var chainID, pending, stuck int64
		if err := rows.Scan(&chainID, &pending, &stuck); err != nil {
			return err
		}
		seen[chainID] = true
		id := strconv.FormatInt(chainID, 10)
		*out = append(*out, gauge(relayerPendingDesc, float64(pending), id), gauge(relayerStuckDesc, float64(stuck), id))
		return nil
	}, relayerSQL, c.cfg.StuckAfter.Seconds())
	for _, ch := range c.cfg.Chains {
		if id := ch.Chain.ChainID(); !seen[id] {
			label := strconv.FormatInt(id, 10)
			*out = append(*out, gauge(relayerPendingDesc, 0, label), gauge(relayerStuckDesc, 0, label))
		}
	}
	return err
}

func (c *StateCollector) readLedger(ctx context.Context, out *[]prometheus.Metric) error {
	return c.query(ctx, func(rows *sql.Rows) error {
		var env string
		var n int64
		if err := rows.Scan(&env, &n); err != nil {
			return err
		}
		*out = append(*out, prometheus.MustNewConstMetric(transfersDesc, prometheus.CounterValue, float64(n), env))
		return nil
	}, `SELECT environment, COALESCE(sum(position), 0)::bigint FROM ledger_chain_heads GROUP BY environment`)
}

// readAnchors reports the ledger anchor's progress: an anchor that stays unmined means the
// relayer cannot get its transaction in (gas, fees, the node), and while it waits no newer
// transfer gets anchored. ledger_anchors holds one row per interval, so it is read whole.
func (c *StateCollector) readAnchors(ctx context.Context, out *[]prometheus.Metric) error {
	return c.query(ctx, func(rows *sql.Rows) error {
		var openAge, lastMined float64
		if err := rows.Scan(&openAge, &lastMined); err != nil {
			return err
		}
		*out = append(*out, gauge(anchorOpenAgeDesc, openAge), gauge(anchorLastMinedDesc, lastMined))
		return nil
	}, `SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(created_at) FILTER (WHERE mined_at IS NULL)), 0)::float8,
	COALESCE(EXTRACT(EPOCH FROM max(mined_at)), 0)::float8 FROM ledger_anchors`)
}

// relayerChain is a chain adapter that names the account paying its gas.
type relayerChain interface {
	RelayerAddress() common.Address
}

// chainReader reads one chain's head, the ledger mirror's lag behind it and the relayer's
// balance. A node that does not answer reports corridor_chain_up 0, not a failed source.
func (c *StateCollector) chainReader(ch Chain) func(ctx context.Context, out *[]prometheus.Metric) error {
	return func(ctx context.Context, out *[]prometheus.Metric) error {
		id := strconv.FormatInt(ch.Chain.ChainID(), 10)
		head, err := ch.Chain.LatestBlock(ctx)
		if err != nil {
			*out = append(*out, gauge(chainUpDesc, 0, ch.Environment, id))
			return nil
		}
		*out = append(*out, gauge(chainUpDesc, 1, ch.Environment, id), gauge(chainHeadDesc, float64(head), ch.Environment, id))
		if r, ok := ch.Chain.(relayerChain); ok {
			if wei, err := ch.Chain.ETHBalance(ctx, r.RelayerAddress()); err == nil {
				*out = append(*out, gauge(relayerBalanceDesc, weiToETH(wei), ch.Environment, id))
			}
		}
		var next int64
		err = c.cfg.DB.QueryRowContext(ctx, `SELECT next_block FROM chain_index_cursors WHERE environment = $1 AND chain_id = $2`,
			ch.Environment, ch.Chain.ChainID()).Scan(&next)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // the mirror has not run yet: nothing trails
		}
		if err != nil {
			return err
		}
		lag := max(float64(head)-float64(next-1), 0)
		*out = append(*out, gauge(indexerLagDesc, lag, ch.Environment, id))
		return c.readDrift(ctx, ch, out)
	}
}

// weiToETH converts for a gauge only: the float loses precision below a gwei, which no alert
// threshold needs.
func weiToETH(wei *big.Int) float64 {
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(wei), big.NewFloat(1e18)).Float64()
	return f
}
