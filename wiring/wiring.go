// Package wiring is the composition root shared by cmd/corridor and the black-box tests: it
// builds adapters and plugs them into the capability services of app/, so a test runs exactly
// the service `corridor serve` runs. Only cmd and test import it.
package wiring

import (
	"context"
	"errors"
	"github.com/corridorhq/corridor/app/requestlogs"
	"log/slog"
	"math/big"
	nethttp "net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/adapters/console"
	"github.com/corridorhq/corridor/adapters/custody"
	"github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/adapters/jobs"
	"github.com/corridorhq/corridor/adapters/outside"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/adapters/sms"
	"github.com/corridorhq/corridor/app/anchors"
	"github.com/corridorhq/corridor/app/checkouts"
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/app/recipients"
	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// Config is everything Build needs; cmd reads it from the environment.
type Config struct {
	DatabaseURL   string
	SessionSecret string
	RateLimit     http.RateLimit
	// DatabaseReadURL is a streaming standby of DatabaseURL that serves reads which may lag
	// (DATABASE_READ_URL; empty: none) while its lag is within ReadMaxLag (0: 5 s).
	DatabaseReadURL string
	ReadMaxLag      time.Duration
	// SharedRateLimits counts the request limits in the database every replica shares
	// (RATE_LIMIT_STORE=postgres) instead of in this process.
	SharedRateLimits bool
	// SharedRateLimitTimeout bounds one shared limit decision before a request is limited by
	// this process's own count (0: the HTTP adapter's 250 ms).
	SharedRateLimitTimeout time.Duration
	BodyLimitBytes         int
	DBMaxConns             int
	IdempotencyTTL         time.Duration
	Chains                 ChainAddresses
	// ChainAdapters are the chains per environment (the simulated chain in tests, a dev or
	// real node in serve). Capabilities report a chain available only when it is here.
	ChainAdapters map[core.Environment]ports.Chain
	// ChainConfirmations is the chain indexers' confirmation depth per environment (0: the head).
	ChainConfirmations map[core.Environment]uint64
	// MaxWalletsPerTenant bounds wallets per tenant and environment (0 = the default, 1000).
	MaxWalletsPerTenant int
	// RelayerBump configures the replacement of relayer transactions stuck in the pool.
	RelayerBump RelayerBumpConfig
	// LedgerAnchorInterval paces the anchor of the ledger's hash-chain heads on chain
	// (LEDGER_ANCHOR_INTERVAL; 0 = DefaultLedgerAnchorInterval, negative = off). Off without a
	// chain adapter.
	LedgerAnchorInterval time.Duration
	// RelayerTxBudget bounds relayer-paid transactions per tenant, environment and UTC day
	// (RELAYER_TX_BUDGET); 0 = no limit.
	RelayerTxBudget int
	Clock           ports.Clock // nil = wall clock
	// Faucet bounds sandbox drips per wallet and per tenant; zero fields take the defaults.
	Faucet wallet.FaucetLimits
	// CipherKey (hex, at least 32 bytes) encrypts phone numbers and payout identifiers at
	// rest. Empty: a random key for this process only (tests); cmd always sets one.
	CipherKey string
	// IssuingProvider is ISSUING_PROVIDER: safe_debit (the default when empty) or
	// funding_account (docs/decisions/cards.md).
	IssuingProvider ports.IssuingProvider
	// CardAuthorizationLifetime is how long a card approval may stay uncaptured before the
	// expiry pass releases it (CARD_AUTHORIZATION_LIFETIME; 0 = 7 days).
	CardAuthorizationLifetime time.Duration
	// PolicyEnforcement is POLICY_ENFORCEMENT: off, log (the default when empty) or enforce.
	PolicyEnforcement policy.Mode
	// ContactCoolingOff is a new contact's cooling-off window (CONTACT_COOLING_OFF; 0 = 24 h).
	ContactCoolingOff time.Duration
	// APIKeyCacheTTL is how long authentication reuses an API key's row (API_KEY_CACHE_TTL;
	// 0 = tenancy.DefaultKeyCacheTTL, negative = off).
	APIKeyCacheTTL time.Duration
	// WrapStore, when set, wraps the store the use cases see: tests inject a failing
	// repository at the port boundary with it. Nil in production.
	WrapStore func(ports.Store) ports.Store
	// Payouts configures the payout providers (docs/decisions/offramp.md); the zero value has every provider off.
	Payouts PayoutConfig
	// DecorateIssuer, when set, wraps the card issuer before the outside-call guard and its
	// health (tests put an outage there); nil in production.
	DecorateIssuer func(ports.CardIssuer) ports.CardIssuer
	// CustodyPKCS11 names the HSM holding LIVE custody keys (docs/decisions/wallets.md); nil: LIVE offers no
	// custodial wallets. TEST always uses the keystore sealed by the cipher.
	CustodyPKCS11 *custody.PKCS11Config
	// ClaimLifetime is a pending claim's lifetime (CLAIM_LIFETIME; 0 = 14 days); ClaimLinkBase
	// (CLAIM_LINK_BASE) prefixes the link texted to the phone.
	ClaimLifetime time.Duration
	ClaimLinkBase string
	// ClaimLinkRateLimit throttles the public claim-link routes per client IP (zero: 30 a
	// minute).
	ClaimLinkRateLimit http.RateLimit
	// ClaimCodesPerIP bounds claim phone codes per client IP per hour (0 = 20);
	// ClaimCodesPerPhone per phone number per hour (0 = 5); ClaimResendsPerClaim bounds the
	// claim-link re-sends of one claim per day (0 = 3).
	ClaimCodesPerIP      int
	ClaimCodesPerPhone   int
	ClaimResendsPerClaim int
	// AliasBudget bounds phone-alias codes sent and wrong codes per phone, tenant and client
	// IP, and pending aliases per tenant (zero fields: the defaults); SMSOutboxRetention is
	// how long the sandbox outbox keeps a message (0 = 7 days).
	AliasBudget        recipients.AliasBudget
	SMSOutboxRetention time.Duration
	// HTTPTimeouts bound reading a request, writing a response and an idle connection; zero
	// fields take http.DefaultTimeouts.
	HTTPTimeouts http.Timeouts
	// Exports bound the CSV exports running at once (EXPORTS_PER_TENANT, EXPORTS_CONCURRENT);
	// zero fields take http.DefaultExportLimits.
	Exports http.ExportLimits
	// OperatorToken (OPERATOR_TOKEN, at least 32 characters) authenticates the operator routes
	// /v1/admin/... (docs/decisions/operations.md). Empty: they answer 503 SERVICE_UNAVAILABLE.
	OperatorToken string
	// Identity verifies session tokens (the OIDC adapter in a LIVE deployment). Nil: the
	// sandbox adapter keyed with SessionSecret, for TEST and local runs.
	Identity ports.Identity
	// ConsoleSignIn signs console members in at the OIDC provider (OIDC_CLIENT_ID); nil: they
	// paste a session token. ConsoleSignInIssuer names the provider on the sign-in page and
	// ConsoleRedirectURL (OIDC_REDIRECT_URL) overrides the callback's URL.
	ConsoleSignIn       console.SignInFlow
	ConsoleSignInIssuer string
	ConsoleRedirectURL  string
	// ConsoleSignInsPerMinute bounds sign-in attempts per client address and form on the
	// console and the operator console (0: console.DefaultSignInsPerMinute).
	ConsoleSignInsPerMinute int
	// ConsoleLocalOwner offers the console's one-click TEST sign-in for the local owner
	// (LocalOwnerUser): `corridor run` only, with the sandbox identity provider. Ignored when
	// Identity is set.
	ConsoleLocalOwner bool
	// CipherPreviousKeys (comma-separated hex) open ciphertexts sealed before CipherKey was
	// rotated in; CipherLookupKey (hex; empty: CipherKey) keys the lookup hashes across
	// rotations.
	CipherPreviousKeys string
	CipherLookupKey    string
	// LiveScreening is the configured screening vendor of LIVE. Nil: LIVE screening fails
	// closed (PROVIDER_UNAVAILABLE); the sandbox adapter screens TEST only.
	LiveScreening ports.Screening
	// DBStatementTimeout and DBIdleInTxTimeout are statement_timeout and
	// idle_in_transaction_session_timeout of every pooled connection (zero: 30 s and 60 s).
	DBStatementTimeout time.Duration
	DBIdleInTxTimeout  time.Duration
	// JobsRescueStuckAfter is how long a job may run before River takes it as stuck (its
	// process died) and retries it (zero: River's hour). Below the jobs' two-minute default
	// time-out it lowers that time-out too (crash tests).
	JobsRescueStuckAfter time.Duration
	// Replica names this replica across restarts (jobs.Config.Replica): a restarted process
	// rescues its previous incarnation's jobs at once.
	Replica string
	// StorePipeline is the store's commit pipeline (STORE_PIPELINE_*): concurrent units of
	// work share one COMMIT per batch. Lanes 0 leaves it off (every unit of work its own
	// transaction); zero MaxBatch and MaxWait take the adapter's defaults.
	StorePipeline postgres.PipelineOptions
	// TrustedProxies are the proxies whose X-Forwarded-For names the client (empty: none).
	TrustedProxies []netip.Prefix
	// Ramps are the sandbox ramps' caps and liquidation address (zero fields: the defaults).
	Ramps RampConfig
	// InvoiceArbiterKey (INVOICE_ARBITER_KEY, hex secp256k1) is the platform arbiter of escrow
	// invoices. Empty: a key derived from a public seed, fit for TEST only (invoices are
	// sandbox only). InvoicePollInterval is the hold Safe balance poller's period (0 = 5 s).
	InvoiceArbiterKey   string
	InvoicePollInterval time.Duration
	// Webhooks tunes webhook deliveries (zero fields: webhooks.DefaultConfig's) and the TEST
	// allowance for local receivers.
	Webhooks webhooks.Config
	// Checkout tunes hosted checkout (zero fields: checkouts.DefaultConfig's); CheckoutPageBase
	// is the public base URL of the payment page (empty: the request's own scheme and host).
	Checkout         checkouts.Config
	CheckoutPageBase string
	// PublicBaseURL (PUBLIC_BASE_URL) is the service's public origin, as clients and the
	// identity provider reach it. URLs the service hands to others are built from it, never
	// from the request's Host or forwarded headers: the payment page (unless CheckoutPageBase
	// says otherwise) and the OIDC callback (unless ConsoleRedirectURL does). Empty: the
	// request's own origin, for programs that embed the service without one.
	PublicBaseURL string
}

// checkoutPageBase is the payment page's public base URL: CheckoutPageBase, else PublicBaseURL.
func (cfg Config) checkoutPageBase() string {
	if cfg.CheckoutPageBase != "" {
		return cfg.CheckoutPageBase
	}
	return strings.TrimRight(cfg.PublicBaseURL, "/")
}

// consoleRedirectURL is the OIDC callback: ConsoleRedirectURL, else under PublicBaseURL.
func (cfg Config) consoleRedirectURL() string {
	if cfg.ConsoleRedirectURL != "" || cfg.PublicBaseURL == "" {
		return cfg.ConsoleRedirectURL
	}
	return strings.TrimRight(cfg.PublicBaseURL, "/") + console.Prefix + "/signin/oidc/callback"
}

// RampConfig configures sandbox ramps: caps in whole USD and the platform liquidation address.
type RampConfig struct {
	MaxAmountUsd       int64
	DailyCapUsd        int64
	LiquidationAddress string
}

// DefaultLiquidationAddress is where sandbox off-ramps pay when configuration names no address.
const DefaultLiquidationAddress = "0x000000000000000000000000000000000000dEaD"

// Service is the wired application: the HTTP server, one service per capability of app/ (tests
// call use cases and jobs on them directly), the store and the job inserter.
type Service struct {
	Server *http.Server
	// The registry's services (one per capability of app/) are the Service's fields too.
	*registry
	Store  *postgres.Store
	Jobs   *jobs.Inserter
	runner *jobs.Runner
	close  func()
	// listen runs the key revocation listener (postgres.ListenKeyRevocations) until
	// stopListen.
	listen     func(ctx context.Context)
	stopListen context.CancelFunc
	// Metrics serves the Prometheus registry; cmd serves it on METRICS_ADDR, never on the API
	// port.
	Metrics nethttp.Handler
	obs     *observability
	// anchoring is the ledger anchor pass (nil without a chain): AnchorLedger runs it.
	anchoring *anchors.Service
}

// Close releases the database pool.
func (s *Service) Close() { s.close() }

// StartWorkers runs the background job workers until StopWorkers, and the listener that
// hears every replica's API-key revocations (docs/decisions/scaling.md) until ctx ends.
func (s *Service) StartWorkers(ctx context.Context) error {
	if s.listen != nil {
		listenCtx, cancel := context.WithCancel(ctx)
		s.stopListen = cancel
		go s.listen(listenCtx)
	}
	return s.runner.Start(ctx)
}

// StopWorkers lets running jobs finish up to ctx's deadline and stops the listener.
func (s *Service) StopWorkers(ctx context.Context) error {
	if s.stopListen != nil {
		s.stopListen()
	}
	return s.runner.Stop(ctx)
}

// Migrate applies the project's embedded migrations, then River's job tables, then on a Citus
// coordinator places every table as postgres.CitusPlan says.
func Migrate(ctx context.Context, url string) (uint, error) {
	v, err := postgres.Migrate(url)
	if err != nil {
		return v, err
	}
	if err := jobs.Migrate(ctx, url); err != nil {
		return v, err
	}
	// On a Citus coordinator the schema is then distributed (a no-op on plain PostgreSQL).
	_, err = postgres.Distribute(ctx, url)
	return v, err
}

// cleanups is a stack of release functions: Build pushes one for each resource it opens, and
// on a failure part-way runs them all in reverse, so no early return leaks what came before.
type cleanups []func()

func (c *cleanups) push(f func()) { *c = append(*c, f) }

// run releases everything pushed, last first.
func (c cleanups) run() {
	for i := len(c) - 1; i >= 0; i-- {
		c[i]()
	}
}

// Build connects to the database (already migrated) and wires every adapter. On an error every
// resource opened so far is released.
func Build(ctx context.Context, cfg Config, log *slog.Logger) (_ *Service, err error) {
	if cfg.DatabaseURL == "" {
		return nil, errors.New("wiring: DatabaseURL is required")
	}
	idp, err := sessionIdentity(cfg)
	if err != nil {
		return nil, err
	}
	db, err := postgres.Open(ctx, cfg.DatabaseURL, postgres.Options{MaxOpenConns: cfg.DBMaxConns,
		StatementTimeout: cfg.DBStatementTimeout, IdleInTransactionTimeout: cfg.DBIdleInTxTimeout})
	if err != nil {
		return nil, err
	}
	var undo cleanups
	defer func() {
		if err != nil {
			undo.run()
		}
	}()
	undo.push(func() { _ = db.Close() })
	store, err := newStore(ctx, db, cfg.StorePipeline)
	if err != nil {
		return nil, err
	}
	undo.push(store.Close)
	bump := useSharedRelayerState(cfg, db, log)
	inserter, err := jobs.NewInserter(db.DB, log)
	if err != nil {
		return nil, err
	}
	protect, err := newCipher(cfg, log)
	if err != nil {
		return nil, err
	}
	p, obs, err := outsidePorts(cfg, db, store, protect, &undo)
	if err != nil {
		return nil, err
	}
	if p.store, err = serviceStore(ctx, cfg, store, obs, &undo); err != nil {
		return nil, err
	}
	p.identity, p.jobs, p.screening = idp, inserter, screening(cfg)
	services, err := newServices(cfg, p, log)
	if err != nil {
		return nil, err
	}
	if err = startRequestLog(services, postgres.NewRequestLogs(db), cfg.Clock, log, &undo); err != nil {
		return nil, err
	}
	anchoring := newLedgerAnchoring(postgres.NewLedgerAnchors(db), cfg.ChainAdapters, cfg.LedgerAnchorInterval, log)
	runner, err := newRunner(ctx, cfg, db, services, bump, obs, log, anchoring)
	if err != nil {
		return nil, err
	}
	if services.Operations, err = newOperations(services, db, inserter, log); err != nil {
		return nil, err
	}
	srv, err := newHTTPServer(cfg, db, store, services, runner, obs, protect, log)
	if err != nil {
		return nil, err
	}
	return &Service{Server: srv, registry: services, Store: store, Jobs: inserter, runner: runner, close: undo.run,
		Metrics: obs.handler(), obs: obs, anchoring: anchoring,
		listen: func(ctx context.Context) {
			postgres.ListenKeyRevocations(ctx, cfg.DatabaseURL, services.Tenancy.ForgetCachedKeys, log)
		}}, nil
}

// outsidePorts are the ports that leave the process (SMS, custody signers, payout rails, the
// webhook sender), each behind the health it reports to, and the observability they are
// measured by. What it opens it pushes on undo.
func outsidePorts(cfg Config, db *bun.DB, store *postgres.Store, protect ports.Cipher, undo *cleanups) (servicePorts, *observability, error) {
	// Outside dependencies' health, from their calls' outcomes (never part of readiness).
	health := outside.NewHealth(map[string]string{outside.SMSHealthName: outside.KindSMS, outside.IssuerHealthName: outside.KindCardIssuer})
	sandboxSMS := sms.NewSandbox(db, protect)
	p := servicePorts{cipher: protect, health: health,
		sms: guardedSMS{SMS: outside.SMS{SMS: sandboxSMS, Health: health}, SMSOutbox: sandboxSMS}}
	signers, closeSigners, err := custodySigners(cfg, db, protect)
	if err != nil {
		return p, nil, err
	}
	undo.push(closeSigners)
	p.custody = signers
	if p.payouts, err = payoutRails(cfg.Payouts, db, cfg.ChainAdapters, health); err != nil {
		return p, nil, err
	}
	obs, err := newObservability(db, store, cfg.ChainAdapters, health)
	if err != nil {
		return p, nil, err
	}
	p.webhookSender, err = obs.webhookSender(cfg.Webhooks)
	return p, obs, err
}

// newRunner builds the job runner with every capability's workers and periodic passes, the
// relayer's fee bump, the shared limits' sweep and the ledger anchor (when a chain carries it).
func newRunner(ctx context.Context, cfg Config, db *bun.DB, services *registry, bump *kernel.RelayerBump, obs *observability, log *slog.Logger,
	anchoring *anchors.Service) (*jobs.Runner, error) {
	extraJobs := []kernel.Jobs{bump, rateLimitSweep{limits: postgres.NewSharedLimits(db)}, services.RequestLogs}
	if anchoring != nil {
		extraJobs = append(extraJobs, anchoring)
	}
	return jobs.NewRunner(ctx, jobs.Config{
		DatabaseURL: cfg.DatabaseURL, Workers: newWorkers(services, extraJobs...), PeriodicJobs: kernel.PeriodicJobs(jobCapabilities(services, extraJobs...)...), Logger: log,
		StatementTimeout: cfg.DBStatementTimeout, IdleInTransactionTimeout: cfg.DBIdleInTxTimeout, Metrics: obs.registry,
		RescueStuckAfter: cfg.JobsRescueStuckAfter, Replica: cfg.Replica,
	})
}

// useSharedRelayerState makes every replica take the relayer's nonces under one database lock
// and record its transactions where any replica's fee-bump pass finds them; it returns the
// fee-bump passes of the chains.
func useSharedRelayerState(cfg Config, db *bun.DB, log *slog.Logger) *kernel.RelayerBump {
	nonces, sentTxs := postgres.NewRelayerNonces(db), postgres.NewRelayerTransactions(db)
	bump := &kernel.RelayerBump{}
	for _, c := range cfg.ChainAdapters {
		if a, ok := c.(*chain.Adapter); ok {
			a.UseNonceKeeper(nonces)
			a.UseTxLog(sentTxs)
			bump.Passes = append(bump.Passes, relayerBumpPass(a, cfg.RelayerBump, log))
		}
	}
	return bump
}

// serviceStore is the store the use cases see: reads routed to the standby when one is
// configured, and every ledger debit through the spend guard's confinement.
func serviceStore(ctx context.Context, cfg Config, store *postgres.Store, obs *observability, undo *cleanups) (ports.Store, error) {
	var appStore ports.Store = store
	readMetrics := postgres.NewReadMetrics()
	if err := obs.registry.Register(readMetrics); err != nil {
		return nil, err
	}
	if cfg.DatabaseReadURL != "" {
		router, closeReads, err := readRouter(ctx, cfg, store, readMetrics)
		if err != nil {
			return nil, err
		}
		undo.push(closeReads)
		appStore = router
	}
	appStore = kernel.GuardLedger(appStore)
	if cfg.WrapStore != nil {
		appStore = cfg.WrapStore(appStore)
	}
	return appStore, nil
}

// newHTTPServer builds the API server and mounts the console on it.
func newHTTPServer(cfg Config, db *bun.DB, store *postgres.Store, services *registry, runner *jobs.Runner,
	obs *observability, protect ports.Cipher, log *slog.Logger) (*http.Server, error) {
	srv, err := http.New(http.Config{
		BodyLimitBytes:     cfg.BodyLimitBytes,
		RateLimit:          cfg.RateLimit,
		Capabilities:       Capabilities(cfg.Chains, cfg.ChainAdapters),
		Store:              store,
		OperatorToken:      cfg.OperatorToken,
		ClaimLinkRateLimit: cfg.ClaimLinkRateLimit,
		SharedLimits:       sharedLimits(cfg, db),
		SharedLimitTimeout: cfg.SharedRateLimitTimeout,
		Timeouts:           cfg.HTTPTimeouts,
		Exports:            cfg.Exports,
		TrustedProxies:     cfg.TrustedProxies,
		CheckoutPageBase:   cfg.checkoutPageBase(),
		Version:            ReadBuild().String(),
		Commit:             ReadBuild().Commit,
		Readiness:          readinessChecks(cfg.ChainAdapters, runner),
		Metrics:            obs.registry,
	}, services.httpDeps(), log)
	if err != nil {
		return nil, err
	}
	srv.MarkLaggingReads(consoleListPaths...)
	if err := mountConsole(srv, services, cfg, protect, postgres.NewSharedLimits(db), log); err != nil {
		return nil, err
	}
	return srv, nil
}

// startRequestLog builds the request log's reader and its recorder, and pushes the recorder's
// stop (writing what waits) onto undo, so it runs before the database closes.
func startRequestLog(services *registry, logs *postgres.RequestLogs, clock ports.Clock, log *slog.Logger, undo *cleanups) error {
	var err error
	if services.RequestLogs, err = requestlogs.New(logs, clock); err != nil {
		return err
	}
	if services.Recorder, err = requestlogs.NewRecorder(logs, log); err != nil {
		return err
	}
	undo.push(services.Recorder.Close)
	return nil
}

// RelayerBumpConfig is RELAYER_BUMP_AFTER and RELAYER_MAX_FEE_GWEI.
type RelayerBumpConfig struct {
	// After is how long a relayer transaction may stay unmined before it is replaced with
	// fees raised by 20% (0: 2 minutes).
	After time.Duration
	// MaxFeeGwei is the ceiling of a replacement's fee cap, in gwei (0: 500).
	MaxFeeGwei int64
}

// relayerBumpPass is one chain's fee-bump pass for the periodic job.
func relayerBumpPass(a *chain.Adapter, cfg RelayerBumpConfig, log *slog.Logger) func(context.Context) error {
	after, maxGwei := cfg.After, cfg.MaxFeeGwei
	if after <= 0 {
		after = 2 * time.Minute
	}
	if maxGwei <= 0 {
		maxGwei = 500
	}
	ceiling := new(big.Int).Mul(big.NewInt(maxGwei), big.NewInt(1_000_000_000))
	return func(ctx context.Context) error {
		_, err := a.BumpStuck(ctx, chain.BumpOptions{After: after, MaxFeeCap: ceiling, Logger: log})
		return err
	}
}

// guardedSMS is the SMS adapter with its sends behind the outside-call guard; reading the
// sandbox outbox stays in the process.
type guardedSMS struct {
	outside.SMS
	ports.SMSOutbox
}

// newStore is the unit of work over db with its commit pipeline; on a Citus coordinator its
// batches hold one tenant's units and a unit spanning the coordinator and a worker commits
// with two-phase commit (adapters/postgres/pipeline_citus.go).
func newStore(ctx context.Context, db *bun.DB, pipe postgres.PipelineOptions) (*postgres.Store, error) {
	store := postgres.NewStore(db)
	citus, err := postgres.IsCitus(ctx, db.DB)
	if err != nil {
		return nil, err
	}
	if citus {
		store = store.ForCitus()
	}
	return store.WithPipeline(pipe), nil
}
