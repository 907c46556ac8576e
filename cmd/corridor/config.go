package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/corridorhq/corridor/adapters/custody"
	"github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/app/checkouts"
	"github.com/corridorhq/corridor/app/recipients"
	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/wiring"
)

// Config is every setting of the corridor binary, read once from the environment at start.
// Each leaf field carries its variable (env), its default (envDefault, or defaultDesc where the
// default is computed at run time), its meaning (desc) and its bounds (min, max, minLength);
// a struct field's desc is the heading of its group. `corridor help` and the table in
// docs/operations.md are generated from these tags, so a new field documents itself.
type Config struct {
	Service  serviceConfig  `desc:"Service"`
	HTTP     httpConfig     `desc:"HTTP"`
	Identity identityConfig `desc:"Identity provider (docs/security.md)"`
	Chain    chainConfig    `desc:"Chains (docs/chain.md)"`
	Wallets  walletsConfig  `desc:"Wallets and sandbox faucet"`
	Claims   claimsConfig   `desc:"Pending claims (docs/claims.md)"`
	Aliases  aliasesConfig  `desc:"Phone aliases and the sandbox SMS outbox (docs/security.md)"`
	Payouts  payoutsConfig  `desc:"Payout providers and off-ramp payments"`
	Ramps    rampsConfig    `desc:"Sandbox ramps (docs/ramps.md)"`
	Webhooks webhooksConfig `desc:"Events and webhooks (docs/webhooks.md)"`
	Checkout checkoutConfig `desc:"Hosted checkout (docs/checkout.md)"`
	Custody  custodyConfig  `desc:"Custody signers of custodial wallets (docs/security.md)"`
	// Local is on under `corridor run` only (runLocal sets it; no variable can): the local dev
	// chain serves TEST unless CHAIN_RPC_URL is set, and payout providers left unset take the
	// sandbox defaults.
	Local bool `env:"-"`
}

// serviceConfig is the process itself: where it listens, its database, its secrets.
type serviceConfig struct {
	DatabaseURL        string        `env:"DATABASE_URL" defaultDesc:"unset: run starts a project-local PostgreSQL" desc:"PostgreSQL URL (PostgreSQL 15+); serve requires it"`
	DatabaseReadURL    string        `env:"DATABASE_READ_URL" defaultDesc:"unset: every read goes to DATABASE_URL" desc:"PostgreSQL URL of a streaming-replication standby of DATABASE_URL: finance exports and statements, the console's lists and the secondary transaction lists read from it while its replay lag is within DATABASE_READ_MAX_LAG"`
	DatabaseReadMaxLag time.Duration `env:"DATABASE_READ_MAX_LAG" envDefault:"5s" desc:"replay lag of DATABASE_READ_URL past which its reads go to the primary (corridor_db_read_replica_lag_seconds reports it)"`
	Addr               string        `env:"CORRIDOR_ADDR" defaultDesc:":$PORT" desc:"listen address"`
	Port               int           `env:"PORT" envDefault:"8080" min:"1" max:"65535" desc:"listen port when CORRIDOR_ADDR is unset"`
	DataDir            string        `env:"CORRIDOR_DATA_DIR" envDefault:".data" desc:"local state of run and session: the local cluster, the dev chain, the dev session secret and cipher key"`
	LocalDatabase      localDatabase `env:"CORRIDOR_LOCAL_DATABASE" envDefault:"postgres" desc:"what run and databases start when DATABASE_URL is unset: postgres (one cluster under the data dir) or citus (a Citus coordinator and two workers under the data dir's citus/, the schema distributed by tenant; the citus extension must be installed, make citus)"`
	PostgresPort       int           `env:"CORRIDOR_PG_PORT" min:"0" max:"65535" defaultDesc:"the saved port, else a free one" desc:"port of the local cluster (run)"`
	DBMaxConns         int           `env:"DB_MAX_CONNS" envDefault:"40" min:"1" desc:"database pool size (the job workers hold a separate small pool)"`
	// DBStatementTimeout and DBIdleInTxTimeout are set on every connection of the pool.
	DBStatementTimeout time.Duration `env:"DB_STATEMENT_TIMEOUT" envDefault:"30s" desc:"statement_timeout of every pooled connection: PostgreSQL cancels a statement that runs longer"`
	// StorePipeline* configure the store's commit pipeline (docs/performance.md).
	StorePipelineLanes    int           `env:"STORE_PIPELINE_LANES" envDefault:"2" min:"0" max:"32" desc:"commit pipeline (on by default: no unit of work calls out of the process, docs/decisions/reliability.md): how many shared transactions (batches) run at once, each on one pooled connection; concurrent units of work join a batch, take effect one after the other in it (a unit that runs statements in its own savepoint; ledger transfers decided in memory and written set-wise) and share its one COMMIT; 0 turns the pipeline off (one transaction per unit of work)"`
	StorePipelineMaxBatch int           `env:"STORE_PIPELINE_MAX_BATCH" envDefault:"128" min:"1" max:"1024" desc:"commit pipeline: a batch stops admitting units of work once it holds this many (or 60 that ran statements)"`
	StorePipelineMaxWait  time.Duration `env:"STORE_PIPELINE_MAX_WAIT" envDefault:"1ms" desc:"commit pipeline: a batch commits once this long has passed since it opened and no unit of work is waiting (it never waits while units queue, up to STORE_PIPELINE_MAX_BATCH)"`
	StorePipelineOverlap  bool          `env:"STORE_PIPELINE_OVERLAP" envDefault:"false" desc:"commit pipeline: a lane opens its next batch while the previous one writes and commits (each lane then uses up to two pooled connections; its batches still commit and answer in order). Off by default: on two cores at concurrency 64 it removed the lanes' wait for COMMIT but not a transfer per second, and its smaller batches cost more processor time per transfer (docs/performance.md)"`
	DBIdleInTxTimeout     time.Duration `env:"DB_IDLE_IN_TX_TIMEOUT" envDefault:"60s" desc:"idle_in_transaction_session_timeout of every pooled connection: PostgreSQL ends a session whose transaction sits idle longer, releasing its locks"`
	JobsRescueStuckAfter  time.Duration `env:"JOBS_RESCUE_STUCK_AFTER" envDefault:"1h" desc:"backstop only: how long a background job may stay running before River takes it as stuck and retries it, for a job no live worker's heartbeat row claims (a dead worker's jobs are rescued within seconds by the worker heartbeat, docs/reliability.md); at least every job's time-out (2 minutes)"`
	Replica               string        `env:"CORRIDOR_REPLICA" defaultDesc:"the host name and listen address" desc:"this replica's name, unique among running processes and kept across its restarts: a restarted replica puts the jobs its previous incarnation was running back to work as it starts (a dead replica's jobs are otherwise rescued once its heartbeat is 10 s stale, docs/reliability.md)"`
	LogLevel              logLevel      `env:"LOG_LEVEL" envDefault:"info" desc:"debug, info, warn or error"`
	// DebugAddr serves Go's profiler for benchmarks and incidents; loopback only.
	DebugAddr string `env:"DEBUG_ADDR" defaultDesc:"unset: no profiler" desc:"loopback address (127.0.0.1:port or [::1]:port) of a separate listener serving /debug/pprof/ (CPU, heap, goroutine, block and mutex profiles; block and mutex sampling is on only while it is set)"`
	// MetricsAddr serves Prometheus metrics on their own listener, never beside the public API.
	MetricsAddr string `env:"METRICS_ADDR" envDefault:"127.0.0.1:9464" desc:"address (host:port) of a separate listener serving Prometheus metrics at /metrics (the public API port answers 404 there); loopback by default, and the default falls back to a free loopback port (logged) when another process holds it: set e.g. :9464 or a private interface for a scraper on another host, never one the internet reaches; off disables it"`
	// ShutdownHTTPGrace and ShutdownWorkersGrace are separate budgets, spent at the same time,
	// so a slow drain of one does not eat the other's.
	ShutdownHTTPGrace    time.Duration `env:"SHUTDOWN_HTTP_GRACE" envDefault:"20s" desc:"how long SIGINT/SIGTERM waits for in-flight HTTP requests before closing their connections"`
	ShutdownWorkersGrace time.Duration `env:"SHUTDOWN_WORKERS_GRACE" envDefault:"30s" desc:"how long SIGINT/SIGTERM waits for running jobs (relays, polls, indexers) before cancelling them; counted from the same moment as SHUTDOWN_HTTP_GRACE"`
	SessionSecret        secret        `env:"SESSION_SECRET" minLength:"32" defaultDesc:"random, kept in the data dir (session.secret)" desc:"HS256 secret of sandbox sessions (IDENTITY_PROVIDER=sandbox, TEST and local runs only)"`
	CipherKey            secret        `env:"CIPHER_KEY" defaultDesc:"random, kept in the data dir (cipher.key, 0600); required when LIVE is served" desc:"primary AES-GCM key (hex, 32+ bytes) for phone numbers and payout identifiers: seals every new ciphertext under its key id, and keys the lookup hashes unless CIPHER_LOOKUP_KEY is set"`
	// CipherPreviousKeys and CipherLookupKey rotate CIPHER_KEY (docs/security.md).
	CipherPreviousKeys secret `env:"CIPHER_PREVIOUS_KEYS" defaultDesc:"unset" desc:"comma-separated hex keys CIPHER_KEY replaced: they open the ciphertexts they sealed and never seal new ones"`
	CipherLookupKey    secret `env:"CIPHER_LOOKUP_KEY" defaultDesc:"CIPHER_KEY; required with CIPHER_PREVIOUS_KEYS" desc:"hex key (32+ bytes) of the stored lookup hashes of phone numbers and payout identifiers; it outlives rotations of CIPHER_KEY: set it to the key the hashes were made with"`
	OperatorToken      secret `env:"OPERATOR_TOKEN" minLength:"32" defaultDesc:"corridor run: random, kept in the data dir (operator.token); serve: unset, admin routes answer 503" desc:"operator token (docs/decisions/operations.md) for /v1/admin/..., sent as X-Operator-Token"`
	// InvoiceArbiterKey is the platform arbiter of escrow invoices (docs/decisions/invoices.md).
	InvoiceArbiterKey   secret        `env:"INVOICE_ARBITER_KEY" defaultDesc:"a key derived from a public seed: TEST only (invoices are sandbox only)" desc:"secp256k1 private key (hex) of the platform arbiter, the default third owner of every invoice hold Safe; it signs settlements through POST /v1/admin/invoices/{id}/arbiter-sign"`
	InvoicePollInterval time.Duration `env:"INVOICE_POLL_INTERVAL" envDefault:"5s" desc:"period of the invoice hold Safe balance poller (SENT to FUNDED or EXPIRED, settlement payments to RELEASED or REFUNDED)"`
	// PolicyEnforcement is the spend-policy rollout flag.
	// ContactCoolingOff delays payments to a newly saved contact.
	// APIKeyCache and APIKeyCacheTTL: how long authentication reuses a key's row.
	APIKeyCache       onOff         `env:"API_KEY_CACHE" envDefault:"on" desc:"on: authentication reuses an API key's row for API_KEY_CACHE_TTL instead of reading it on every request; off: every request reads it"`
	APIKeyCacheTTL    time.Duration `env:"API_KEY_CACHE_TTL" envDefault:"1s" desc:"how long authentication reuses an API key's row: a revocation takes effect at once on the instance that made it, and within this time on every other instance"`
	ContactCoolingOff time.Duration `env:"CONTACT_COOLING_OFF" envDefault:"24h" desc:"cooling-off window of a new contact: Safe payments to it answer 403 PAYEE_COOLING_OFF until it ends (0 = the 24h default)"`
	PolicyEnforcement policy.Mode   `env:"POLICY_ENFORCEMENT" envDefault:"log" desc:"spend-policy gate on Safe payment propose, the off-ramp composer and card authorizations: off, log (record would-be declines, proceed) or enforce (403 POLICY_DENIED, a card decline; POLICY_UNAVAILABLE when the policy store fails)"`
	// IssuingProvider is the card issuer program (docs/decisions/cards.md).
	// CardAuthorizationLifetime bounds how long a card approval holds funds uncaptured.
	CardAuthorizationLifetime time.Duration         `env:"CARD_AUTHORIZATION_LIFETIME" envDefault:"168h" desc:"how long a card approval may stay uncaptured (0 = the 168h default): the expiry pass then voids its hold, credits its windows back and records it REVERSED with reversalReason EXPIRED"`
	IssuingProvider           ports.IssuingProvider `env:"ISSUING_PROVIDER" envDefault:"safe_debit" desc:"card issuer program: safe_debit (wallet cards spend from their Safe; push-provisioning ephemeral keys offered) or funding_account (cards draw on a funding card account; ephemeral keys answer 400)"`
}

// httpConfig bounds the HTTP adapter.
type httpConfig struct {
	BodyLimitBytes     int            `env:"BODY_LIMIT_BYTES" envDefault:"1048576" min:"1" desc:"request body limit"`
	RateLimitPerSecond float64        `env:"RATE_LIMIT_PER_SECOND" envDefault:"100" min:"0" desc:"per-credential (per IP when anonymous) request rate; 0 disables the limit"`
	RateLimitBurst     int            `env:"RATE_LIMIT_BURST" envDefault:"200" min:"0" desc:"burst of the per-credential limit; 0 is the per-second rate"`
	RateLimitStore     rateLimitStore `env:"RATE_LIMIT_STORE" envDefault:"memory" desc:"where the per-credential, claim-link and ephemeral-key limits are counted: memory (each process on its own; one replica) or postgres (one count every replica shares, one upsert per request; set it when more than one replica serves)"`
	IdempotencyTTL     time.Duration  `env:"IDEMPOTENCY_TTL" envDefault:"24h" desc:"how long a POST outcome stays replayable under its Idempotency-Key"`
	ReadTimeout        time.Duration  `env:"HTTP_READ_TIMEOUT" envDefault:"15s" desc:"time to read a request"`
	WriteTimeout       time.Duration  `env:"HTTP_WRITE_TIMEOUT" envDefault:"30s" desc:"time to answer a request"`
	RequestTimeout     time.Duration  `env:"REQUEST_TIMEOUT" envDefault:"25s" desc:"deadline of one request's work (its statements and chain calls): past it the request answers 503 SERVICE_UNAVAILABLE or CHAIN_UNAVAILABLE; keep it below HTTP_WRITE_TIMEOUT and above CHAIN_RPC_TIMEOUT"`
	IdleTimeout        time.Duration  `env:"HTTP_IDLE_TIMEOUT" envDefault:"90s" desc:"how long an idle keep-alive connection stays open"`
	ExportsPerTenant   int            `env:"EXPORTS_PER_TENANT" envDefault:"2" min:"1" desc:"CSV exports (Accept: text/csv, ?format=csv) one tenant may run at once; past it 429 RATE_LIMITED with Retry-After (a CSV page is read and rendered in memory, docs/performance.md)"`
	ExportsConcurrent  int            `env:"EXPORTS_CONCURRENT" envDefault:"8" min:"1" desc:"CSV exports the process runs at once, every tenant together; past it 429 RATE_LIMITED with Retry-After"`
	TrustedProxies     cidrList       `env:"TRUSTED_PROXIES" defaultDesc:"unset: the socket's peer is the client" desc:"comma-separated CIDRs (or addresses) of the proxies in front of the service; only from them is X-Forwarded-For read, its rightmost untrusted hop being the client IP of rate limits and claim-code budgets"`
	PublicBaseURL      string         `env:"PUBLIC_BASE_URL" defaultDesc:"http://localhost:$PORT (the listen address's port)" desc:"the service's public origin (scheme and host, as clients reach it): checkout payment_url and the OIDC redirect_uri are built from it, never from the request's Host or X-Forwarded-* headers; set it in every deployment behind a domain"`
	ConsoleSignIns     int            `env:"CONSOLE_SIGNINS_PER_MINUTE" envDefault:"10" min:"1" desc:"sign-in attempts one client address may make per minute on the console's and the operator console's sign-in forms (one budget every replica shares, counted in the database); past it 429 with Retry-After"`
}

// identityConfig chooses the identity provider of sessions (docs/decisions/tenancy.md). LIVE is never served with the
// sandbox's shared-secret sessions.
type identityConfig struct {
	Provider         identityProvider `env:"IDENTITY_PROVIDER" envDefault:"sandbox" desc:"sandbox (HS256 tokens signed with SESSION_SECRET, minted by corridor session; TEST and local runs) or oidc (the provider's RS256/ES256 tokens, verified against its key set)"`
	Issuer           string           `env:"OIDC_ISSUER" defaultDesc:"unset (required with oidc)" desc:"the provider's issuer URL, compared exactly with the iss claim (https; http only on a loopback host)"`
	Audience         string           `env:"OIDC_AUDIENCE" defaultDesc:"unset (required with oidc)" desc:"this service's identifier at the provider: a token's aud must include it"`
	JWKSURL          string           `env:"OIDC_JWKS_URL" defaultDesc:"$OIDC_ISSUER/.well-known/jwks.json" desc:"the provider's key set (https); set it for providers that publish it elsewhere (see their discovery document's jwks_uri)"`
	MaxTokenLifetime time.Duration    `env:"OIDC_MAX_TOKEN_LIFETIME" envDefault:"24h" desc:"longest lifetime (exp - iat) of a token accepted; a token without iat is refused"`
	JWKSTimeout      time.Duration    `env:"OIDC_JWKS_TIMEOUT" envDefault:"5s" desc:"deadline of one fetch of the key set (fetched at start, hourly, and at most once a minute when a token names an unknown key id)"`
	ClientID         string           `env:"OIDC_CLIENT_ID" defaultDesc:"unset (the console takes pasted tokens)" desc:"the console's client at the provider: with it the console signs members in at the provider (authorization code flow with PKCE) and keeps the token it returns"`
	ClientSecret     secret           `env:"OIDC_CLIENT_SECRET" defaultDesc:"unset (a public client, protected by PKCE)" desc:"the console client's secret, sent to the token endpoint"`
	AuthorizationURL string           `env:"OIDC_AUTHORIZATION_URL" defaultDesc:"the discovery document's authorization_endpoint" desc:"where the console sends a member to sign in (https)"`
	TokenURL         string           `env:"OIDC_TOKEN_URL" defaultDesc:"the discovery document's token_endpoint" desc:"where the console exchanges the sign-in's code (https)"`
	RedirectURL      string           `env:"OIDC_REDIRECT_URL" defaultDesc:"the request's origin + /console/signin/oidc/callback" desc:"the console's callback as registered at the provider; set it behind a proxy that rewrites the host"`
}

// walletsConfig bounds wallets and sandbox drips per tenant.
type walletsConfig struct {
	MaxWalletsPerTenant int           `env:"MAX_WALLETS_PER_TENANT" envDefault:"1000" min:"1" desc:"wallets per tenant and environment"`
	RelayerTxBudget     int           `env:"RELAYER_TX_BUDGET" envDefault:"500" min:"1" desc:"relayer-paid transactions (Safe deployments, Safe payment executions, claim escrow fundings) a tenant may cause per environment and UTC day; past it the request answers 429 RATE_LIMITED with details.scope relayer"`
	RelayerBumpAfter    time.Duration `env:"RELAYER_BUMP_AFTER" envDefault:"2m" desc:"how long a relayer transaction may stay unmined before it is sent again with the same nonce and fee cap and tip raised by 20% (checked every 30s)"`
	RelayerMaxFeeGwei   int           `env:"RELAYER_MAX_FEE_GWEI" envDefault:"500" min:"1" desc:"ceiling of a fee-bumped replacement's fee cap, in gwei: a bump that would pass it is not sent and is logged"`
	Faucet              faucetConfig  `envPrefix:"FAUCET_"`
}

// faucetConfig bounds sandbox USDC drips over a rolling window, counted in the database.
type faucetConfig struct {
	DripsPerWallet int           `env:"DRIPS_PER_WALLET" envDefault:"10" min:"1" desc:"faucet drips per wallet per window"`
	DripsPerTenant int           `env:"DRIPS_PER_TENANT" envDefault:"50" min:"1" desc:"faucet drips per tenant and environment per window"`
	Window         time.Duration `env:"WINDOW" envDefault:"1h" desc:"the faucet's rolling window"`
}

// rampsConfig are the sandbox ramps' caps and the platform liquidation address.
type rampsConfig struct {
	MaxAmountUsd       int    `env:"RAMP_MAX_AMOUNT_USD" envDefault:"10000" min:"1" desc:"largest sandbox on-ramp, in whole USD (above it: 422 RAMP_AMOUNT_TOO_LARGE)"`
	DailyCapUsd        int    `env:"RAMP_DAILY_CAP_USD" envDefault:"50000" min:"1" desc:"sandbox on-ramps per tenant over a rolling 24 hours, in whole USD (past it: 422 RAMP_DAILY_CAP)"`
	LiquidationAddress string `env:"RAMP_LIQUIDATION_ADDRESS" envDefault:"0x000000000000000000000000000000000000dEaD" desc:"the platform address sandbox off-ramps pay their USDC to (an EVM address on the sandbox chain)"`
}

// webhooksConfig tunes webhook deliveries.
type webhooksConfig struct {
	RetryBase        time.Duration `env:"WEBHOOK_RETRY_BASE" envDefault:"30s" desc:"delay before a failed delivery's second attempt; each later one doubles it, with jitter"`
	RetryMax         time.Duration `env:"WEBHOOK_RETRY_MAX" envDefault:"6h" desc:"longest delay between two attempts of a delivery"`
	RetryWindow      time.Duration `env:"WEBHOOK_RETRY_WINDOW" envDefault:"72h" desc:"how long a delivery is retried, and how long an endpoint may fail without a success before it is disabled"`
	Timeout          time.Duration `env:"WEBHOOK_TIMEOUT" envDefault:"10s" desc:"bound of one delivery attempt: a slower receiver is retried"`
	AllowPrivateTest bool          `env:"WEBHOOK_ALLOW_PRIVATE_TEST" envDefault:"false" desc:"let TEST endpoints point at loopback and private addresses (local receivers during development); LIVE endpoints never may"`
}

// custodyConfig names the HSM that holds LIVE custody keys (docs/decisions/wallets.md). TEST custodial wallets use
// the keystore sealed by CIPHER_KEY whatever this says.
type custodyConfig struct {
	PKCS11Module string `env:"CUSTODY_PKCS11_MODULE" defaultDesc:"unset: LIVE offers no custodial wallets" desc:"path of the HSM vendor's PKCS#11 library; its token holds the owner keys of LIVE custodial wallets"`
	PKCS11Token  string `env:"CUSTODY_PKCS11_TOKEN" defaultDesc:"unset" desc:"label of the PKCS#11 token holding custody keys"`
	PKCS11PIN    secret `env:"CUSTODY_PKCS11_PIN" defaultDesc:"unset" desc:"user PIN of that token"`
}

// checkoutConfig tunes hosted checkout: the watcher and the payment page.
type checkoutConfig struct {
	Confirmations int           `env:"CHECKOUT_CONFIRMATIONS" envDefault:"3" min:"1" max:"1000" desc:"depth a USDC transfer to a checkout's deposit address needs before it counts toward COMPLETED"`
	Lifetime      time.Duration `env:"CHECKOUT_LIFETIME" envDefault:"30m" desc:"how long a checkout waits for its payment (expires_at); unpaid after it, the checkout is FAILED"`
	PollInterval  time.Duration `env:"CHECKOUT_POLL_INTERVAL" envDefault:"5s" desc:"period of the checkout watcher (deposit address transfers and balance)"`
	LateWindow    time.Duration `env:"CHECKOUT_LATE_WINDOW" envDefault:"24h" desc:"how long after expiry the watcher still reads a deposit address, so late funds are swept, credited and refundable"`
	PageBaseURL   string        `env:"CHECKOUT_PAGE_BASE_URL" defaultDesc:"unset: the request's own scheme and host" desc:"public base URL of the hosted payment page; payment_url is it plus /pay/{id}"`
}

// claimsConfig are the knobs of pending claims: lifetime, link and the anti-abuse budgets.
type claimsConfig struct {
	Lifetime          time.Duration `env:"CLAIM_LIFETIME" envDefault:"336h" desc:"a pending claim's lifetime"`
	LinkBase          string        `env:"CLAIM_LINK_BASE" envDefault:"https://claim.corridor.test/c/" desc:"prefix of the claim link texted to unknown recipients (an http or https URL)"`
	LinkRatePerMinute int           `env:"CLAIM_LINK_RATE_PER_MINUTE" envDefault:"30" min:"1" desc:"public claim-link requests per client IP per minute"`
	LinkRateBurst     int           `env:"CLAIM_LINK_RATE_BURST" envDefault:"30" min:"1" desc:"burst of the claim-link throttle"`
	CodesPerPhone     int           `env:"CLAIM_CODES_PER_PHONE" envDefault:"5" min:"1" desc:"claim phone codes per phone number per hour"`
	CodesPerIP        int           `env:"CLAIM_CODES_PER_IP" envDefault:"20" min:"1" desc:"claim phone codes per client IP per hour, across claims"`
	ResendsPerClaim   int           `env:"CLAIM_RESENDS_PER_CLAIM" envDefault:"3" min:"1" desc:"claim-link re-sends of one claim per 24 hours"`
}

// aliasesConfig are the budgets of phone-alias codes and the sandbox outbox's retention.
type aliasesConfig struct {
	CodesPerPhone  int           `env:"PHONE_ALIAS_CODES_PER_PHONE" envDefault:"10" min:"1" desc:"phone-alias codes sent plus wrong codes per phone number per budget window"`
	CodesPerTenant int           `env:"PHONE_ALIAS_CODES_PER_TENANT" envDefault:"30" min:"1" desc:"phone-alias codes sent plus wrong codes per tenant per budget window"`
	CodesPerIP     int           `env:"PHONE_ALIAS_CODES_PER_IP" envDefault:"60" min:"1" desc:"phone-alias codes sent plus wrong codes per client IP per budget window"`
	MaxPending     int           `env:"PHONE_ALIAS_MAX_PENDING" envDefault:"5" min:"1" desc:"a tenant's phone aliases waiting for an unexpired code"`
	BudgetWindow   time.Duration `env:"PHONE_ALIAS_BUDGET_WINDOW" envDefault:"1h" desc:"the window the phone-alias budgets count over"`
	SMSRetention   time.Duration `env:"SMS_OUTBOX_RETENTION" envDefault:"168h" desc:"how long the sandbox SMS outbox keeps a message before the purge deletes it"`
}

// payoutsConfig configures the payout providers (docs/decisions/offramp.md) and the off-ramp's timing. Every provider
// this build knows (wiring.PayoutProviderNames) has a field; a test keeps them in step.
type payoutsConfig struct {
	Internal            payoutProviderConfig `envPrefix:"PAYOUT_INTERNAL_"`
	Onchain             payoutProviderConfig `envPrefix:"PAYOUT_ONCHAIN_"`
	WalletA             payoutProviderConfig `envPrefix:"PAYOUT_WALLET_A_"`
	WalletB             payoutProviderConfig `envPrefix:"PAYOUT_WALLET_B_"`
	QuoteLifetime       time.Duration        `env:"OFFRAMP_QUOTE_LIFETIME" envDefault:"120s" desc:"a payout quote's lifetime"`
	PollInterval        time.Duration        `env:"OFFRAMP_POLL_INTERVAL" envDefault:"5s" desc:"delay between polls of a payout provider"`
	PollWindow          time.Duration        `env:"OFFRAMP_POLL_WINDOW" envDefault:"72h" desc:"how long a submitted payout is polled without a final answer (or its polls keep failing) before the payment is given up on: ACTION_REQUIRED with hold PROVIDER_UNRESPONSIVE, moved on by the provider's next report"`
	QuoteExpiryInterval time.Duration        `env:"OFFRAMP_QUOTE_EXPIRY_INTERVAL" envDefault:"10s" desc:"how often the quote-expiry pass returns payments whose quote set expired to POLICY_CHECK for a fresh set"`
	PhoneReverifyAfter  time.Duration        `env:"OFFRAMP_PHONE_REVERIFY_AFTER" envDefault:"8760h" desc:"how long a phone alias's verification holds for payments to it; older, payments hold PHONE_REVERIFICATION_REQUIRED until the recipient re-verifies (POST /v1/phone-aliases/{id}/reverify)"`
	HoldRecheckInterval time.Duration        `env:"OFFRAMP_HOLD_RECHECK_INTERVAL" envDefault:"30s" desc:"how often the hold recheck pass re-runs the policy composer for payments held on PROVIDER_UNAVAILABLE, POLICY_SUBSYSTEM_ERROR or INSUFFICIENT_ROUTE_LIQUIDITY (each payment backs off from this interval, doubling up to an hour)"`
}

// limits are the faucet limits wallet.FaucetLimits expects.
func (c faucetConfig) limits() wallet.FaucetLimits {
	return wallet.FaucetLimits{PerWallet: c.DripsPerWallet, PerTenant: c.DripsPerTenant, Window: c.Window}
}

// payoutProviderConfig is one provider's mode and webhook secret.
type payoutProviderConfig struct {
	Mode          ports.ProviderMode `env:"MODE" defaultDesc:"off (run: internal live, the others mock)" desc:"off, mock, sandbox or live; off fails closed: the provider's routes are ineligible"`
	WebhookSecret secret             `env:"WEBHOOK_SECRET" defaultDesc:"unset: every webhook is refused (401)" desc:"HMAC secret of the provider's webhooks"`
	LiquidityUSD  int                `env:"LIQUIDITY_USD" envDefault:"0" min:"0" max:"1000000000" desc:"the provider's route liquidity in whole USD: a larger payment is held INSUFFICIENT_ROUTE_LIQUIDITY until an operator tops it up (POST /v1/admin/payout-providers/{provider}/liquidity); 0 = uncapped"`
}

// byName maps the provider names of wiring.PayoutProviderNames to their configuration.
func (c payoutsConfig) byName() map[string]payoutProviderConfig {
	return map[string]payoutProviderConfig{"internal": c.Internal, "onchain": c.Onchain, "wallet_a": c.WalletA, "wallet_b": c.WalletB}
}

// wiring turns the payout configuration into wiring's; an unset mode stays unset.
func (c payoutsConfig) wiring() wiring.PayoutConfig {
	out := wiring.PayoutConfig{Modes: map[string]ports.ProviderMode{}, WebhookSecrets: map[string]string{},
		QuoteLifetime: c.QuoteLifetime, PollInterval: c.PollInterval, PollWindow: c.PollWindow,
		QuoteExpiryInterval: c.QuoteExpiryInterval, HoldRecheckInterval: c.HoldRecheckInterval,
		PhoneReverifyAfter: c.PhoneReverifyAfter}
	for name, p := range c.byName() {
		if p.Mode != "" {
			out.Modes[name] = p.Mode
		}
		if p.WebhookSecret.set() {
			out.WebhookSecrets[name] = p.WebhookSecret.reveal()
		}
		if p.LiquidityUSD > 0 {
			if out.Liquidity == nil {
				out.Liquidity = map[string]int64{}
			}
			out.Liquidity[name] = int64(p.LiquidityUSD) * 1_000_000
		}
	}
	return out
}

// listenAddr is CORRIDOR_ADDR, else every interface on PORT.
func (c Config) listenAddr() string {
	if c.Service.Addr != "" {
		return c.Service.Addr
	}
	return fmt.Sprintf(":%d", c.Service.Port)
}

// publicBaseURL is PUBLIC_BASE_URL, else http://localhost on the listen address's port (a
// local run), without a trailing slash.
func (c Config) publicBaseURL() string {
	if base := strings.TrimRight(strings.TrimSpace(c.HTTP.PublicBaseURL), "/"); base != "" {
		return base
	}
	port := fmt.Sprint(c.Service.Port)
	if _, p, err := net.SplitHostPort(c.listenAddr()); err == nil && p != "" {
		port = p
	}
	return "http://localhost:" + port
}

// replica is CORRIDOR_REPLICA, else the host name and the listen address: stable across a
// restart on the same address, distinct for two processes on one machine (they cannot share it).
// A port chosen at random (:0) names nothing stable: the replica is then anonymous.
func (c Config) replica() string {
	if c.Service.Replica != "" {
		return c.Service.Replica
	}
	if strings.HasSuffix(c.listenAddr(), ":0") {
		return ""
	}
	host, err := os.Hostname()
	if err != nil {
		host = "localhost"
	}
	return host + c.listenAddr()
}

// wiringConfig is the part of wiring.Config that comes from the environment; serveURL adds
// the database URL, the secrets it resolved and the chains it started.
func (c Config) wiringConfig() wiring.Config {
	return wiring.Config{
		ConsoleSignInIssuer: c.Identity.Issuer, ConsoleRedirectURL: c.Identity.RedirectURL,
		BodyLimitBytes: c.HTTP.BodyLimitBytes, DBMaxConns: c.Service.DBMaxConns, IdempotencyTTL: c.HTTP.IdempotencyTTL,
		RateLimit:                 http.RateLimit{PerSecond: c.HTTP.RateLimitPerSecond, Burst: c.HTTP.RateLimitBurst},
		SharedRateLimits:          c.HTTP.RateLimitStore == rateLimitPostgres,
		DatabaseReadURL:           c.Service.DatabaseReadURL,
		ReadMaxLag:                c.Service.DatabaseReadMaxLag,
		HTTPTimeouts:              http.Timeouts{Read: c.HTTP.ReadTimeout, Write: c.HTTP.WriteTimeout, Idle: c.HTTP.IdleTimeout, Request: c.HTTP.RequestTimeout},
		Exports:                   http.ExportLimits{PerTenant: c.HTTP.ExportsPerTenant, Total: c.HTTP.ExportsConcurrent},
		Chains:                    wiring.ChainAddresses{SandboxUSDC: string(c.Chain.SandboxUSDC), LiveUSDC: string(c.Chain.LiveUSDC)},
		MaxWalletsPerTenant:       c.Wallets.MaxWalletsPerTenant,
		ChainConfirmations:        c.Chain.confirmations(),
		RelayerTxBudget:           c.Wallets.RelayerTxBudget,
		LedgerAnchorInterval:      anchorInterval(c.Chain.AnchorInterval),
		RelayerBump:               wiring.RelayerBumpConfig{After: c.Wallets.RelayerBumpAfter, MaxFeeGwei: int64(c.Wallets.RelayerMaxFeeGwei)},
		Faucet:                    c.Wallets.Faucet.limits(),
		PolicyEnforcement:         c.Service.PolicyEnforcement,
		IssuingProvider:           c.Service.IssuingProvider,
		CardAuthorizationLifetime: c.Service.CardAuthorizationLifetime,
		ContactCoolingOff:         c.Service.ContactCoolingOff,
		APIKeyCacheTTL:            apiKeyCacheTTL(c.Service.APIKeyCache, c.Service.APIKeyCacheTTL),
		DBStatementTimeout:        c.Service.DBStatementTimeout,
		DBIdleInTxTimeout:         c.Service.DBIdleInTxTimeout,
		JobsRescueStuckAfter:      c.Service.JobsRescueStuckAfter,
		Replica:                   c.replica(),
		StorePipeline: postgres.PipelineOptions{Lanes: c.Service.StorePipelineLanes,
			MaxBatch: c.Service.StorePipelineMaxBatch, MaxWait: pipelineWait(c.Service.StorePipelineMaxWait),
			Overlap: c.Service.StorePipelineOverlap},
		TrustedProxies:      c.HTTP.TrustedProxies,
		CipherPreviousKeys:  c.Service.CipherPreviousKeys.reveal(),
		CipherLookupKey:     c.Service.CipherLookupKey.reveal(),
		Payouts:             c.Payouts.wiring(),
		OperatorToken:       c.Service.OperatorToken.reveal(),
		InvoiceArbiterKey:   c.Service.InvoiceArbiterKey.reveal(),
		InvoicePollInterval: c.Service.InvoicePollInterval,
		ClaimLifetime:       c.Claims.Lifetime,
		ClaimLinkBase:       c.Claims.LinkBase,
		ClaimLinkRateLimit: http.RateLimit{PerSecond: float64(c.Claims.LinkRatePerMinute) / 60,
			Burst: c.Claims.LinkRateBurst},
		ClaimCodesPerIP: c.Claims.CodesPerIP,
		Ramps: wiring.RampConfig{MaxAmountUsd: int64(c.Ramps.MaxAmountUsd), DailyCapUsd: int64(c.Ramps.DailyCapUsd),
			LiquidationAddress: c.Ramps.LiquidationAddress},
		ClaimCodesPerPhone:   c.Claims.CodesPerPhone,
		ClaimResendsPerClaim: c.Claims.ResendsPerClaim,
		AliasBudget: recipients.AliasBudget{PerPhone: c.Aliases.CodesPerPhone, PerTenant: c.Aliases.CodesPerTenant,
			PerIP: c.Aliases.CodesPerIP, MaxPending: c.Aliases.MaxPending, Window: c.Aliases.BudgetWindow},
		SMSOutboxRetention: c.Aliases.SMSRetention,
		Webhooks: webhooks.Config{RetryBase: c.Webhooks.RetryBase, RetryMax: c.Webhooks.RetryMax, RetryWindow: c.Webhooks.RetryWindow,
			Timeout: c.Webhooks.Timeout, AllowPrivateTest: c.Webhooks.AllowPrivateTest},
		Checkout: checkouts.Config{Confirmations: uint64(c.Checkout.Confirmations), //nolint:gosec // min 1
			Lifetime:     c.Checkout.Lifetime,
			PollInterval: c.Checkout.PollInterval, LateWindow: c.Checkout.LateWindow},
		CheckoutPageBase:        strings.TrimRight(c.Checkout.PageBaseURL, "/"),
		PublicBaseURL:           c.publicBaseURL(),
		ConsoleSignInsPerMinute: c.HTTP.ConsoleSignIns,
		CustodyPKCS11:           c.Custody.pkcs11(),
	}
}

// pkcs11 is the HSM's configuration, nil when none is named.
func (c custodyConfig) pkcs11() *custody.PKCS11Config {
	if strings.TrimSpace(c.PKCS11Module) == "" {
		return nil
	}
	return &custody.PKCS11Config{ModulePath: strings.TrimSpace(c.PKCS11Module), TokenLabel: c.PKCS11Token, PIN: c.PKCS11PIN.reveal()}
}

// servesLive says whether this deployment serves LIVE: LIVE money moves only on the LIVE
// chain (LIVE has no sandbox deposits), so a configured LIVE_CHAIN_RPC_URL is what makes LIVE
// real. Without it LIVE keys exist but every LIVE money movement answers CHAIN_UNAVAILABLE.
func (c Config) servesLive() bool { return c.Chain.LiveRPCURL.set() }

// checkServe refuses to serve LIVE with what is only fit for TEST and local runs: sandbox
// sessions, whose HS256 secret lets whoever holds it be any user, and a cipher key generated
// into the data dir, which a redeploy loses along with every phone number it sealed.
func (c Config) checkServe() error {
	if !c.servesLive() {
		return nil
	}
	if c.Identity.Provider != providerOIDC {
		return configError{"IDENTITY_PROVIDER", "sandbox sessions (HS256, one shared secret) cannot serve LIVE (LIVE_CHAIN_RPC_URL is set): set IDENTITY_PROVIDER=oidc with OIDC_ISSUER and OIDC_AUDIENCE"}
	}
	if !c.Service.CipherKey.set() {
		return configError{"CIPHER_KEY", "is required when LIVE is served (LIVE_CHAIN_RPC_URL is set): a key generated into the data dir is for TEST and local runs only"}
	}
	return nil
}

// sessionSecret returns SESSION_SECRET, or for local use a random secret kept in the data dir,
// so `corridor session` and `corridor run` on one machine agree without any setup.
func (c Config) sessionSecret() (string, error) {
	if c.Service.SessionSecret.set() {
		return c.Service.SessionSecret.reveal(), nil
	}
	return c.dataDirSecret("session.secret", 32)
}

// cipherKey returns CIPHER_KEY (checked at load), or for local use a random key kept in the
// data dir, so phone numbers and payout identifiers stay readable across restarts.
func (c Config) cipherKey() (string, error) {
	if c.Service.CipherKey.set() {
		return c.Service.CipherKey.reveal(), nil
	}
	return c.dataDirSecret("cipher.key", 64)
}

// operatorTokenFile is where `corridor run` keeps the operator token it generated.
const operatorTokenFile = "operator.token"

// operatorToken returns OPERATOR_TOKEN; under `corridor run` without one, a random token kept in
// the data dir, so a newcomer's operator actions (the platform arbiter's signature on an
// invoice, a review approval) work without setup; `corridor serve` without one leaves the
// admin routes off (503), as before.
func (c Config) operatorToken() (string, error) {
	if c.Service.OperatorToken.set() || !c.Local {
		return c.Service.OperatorToken.reveal(), nil
	}
	return c.dataDirSecret(operatorTokenFile, 32)
}

// dataDirSecret reads a secret kept in a file of the data dir (at least minLength characters),
// or creates the file (0600) with 32 random bytes in hex.
func (c Config) dataDirSecret(name string, minLength int) (string, error) {
	dir := c.Service.DataDir
	path := filepath.Join(dir, name)
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= minLength {
		return strings.TrimSpace(string(b)), nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil { //nolint:gosec // the data dir also holds the local cluster, which PostgreSQL's own account must traverse
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	value := hex.EncodeToString(buf)
	if err := os.WriteFile(path, []byte(value+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return value, nil
}

// apiKeyCacheTTL maps API_KEY_CACHE and API_KEY_CACHE_TTL to the wiring's convention, where
// a negative TTL is off.
func apiKeyCacheTTL(on onOff, d time.Duration) time.Duration {
	if !on || d <= 0 {
		return -1
	}
	return d
}

// pipelineWait maps STORE_PIPELINE_MAX_WAIT to the adapter's option, where 0 takes the default
// and a negative value means no wait.
func pipelineWait(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}

// anchorInterval maps LEDGER_ANCHOR_INTERVAL to wiring's setting: 0 there turns anchoring off.
func anchorInterval(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}
