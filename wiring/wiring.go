// Package wiring is the composition root shared by cmd/corridor and the black-box tests: it
// builds adapters and plugs them into app, so a test runs exactly the service `corridor serve`
// runs. Only cmd and test import it.
package wiring

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"corridor/adapters/cipher"
	"corridor/adapters/http"
	"corridor/adapters/identity"
	"corridor/adapters/jobs"
	"corridor/adapters/payout"
	"corridor/adapters/postgres"
	"corridor/adapters/sms"
	"corridor/app"
	"corridor/app/finance"
	"corridor/app/kernel"
	policyapp "corridor/app/policy"
	safepayapp "corridor/app/safepay"
	"corridor/app/tenancy"
	"corridor/app/wallets"
	"corridor/core"
	"corridor/core/policy"
	"corridor/core/wallet"
	"corridor/ports"
)

// Config is everything Build needs; cmd reads it from the environment.
type Config struct {
	DatabaseURL    string
	SessionSecret  string
	RateLimit      http.RateLimit
	BodyLimitBytes int
	DBMaxConns     int
	IdempotencyTTL time.Duration
	Chains         ChainAddresses
	// ChainAdapters are the chains per environment (the simulated chain in tests, a dev or
	// real node in serve). Capabilities report a chain available only when it is here.
	ChainAdapters map[core.Environment]ports.Chain
	// MaxWalletsPerTenant bounds wallets per tenant and environment (0 = the default, 1000).
	MaxWalletsPerTenant int
	Clock               ports.Clock // nil = wall clock
	// Faucet bounds sandbox drips per wallet and per tenant; zero fields take the defaults.
	Faucet wallet.FaucetLimits
	// CipherKey (hex, at least 32 bytes) encrypts phone numbers and payout identifiers at
	// rest. Empty: a random key for this process only (tests); cmd always sets one.
	CipherKey string
	// PolicyEnforcement is POLICY_ENFORCEMENT: off, log (the default when empty) or enforce.
	PolicyEnforcement policy.Mode
	// WrapStore, when set, wraps the store the use cases see: tests inject a failing
	// repository at the port boundary with it. Nil in production.
	WrapStore func(ports.Store) ports.Store
	// Payouts configures the payout providers (D9); the zero value has every provider off.
	Payouts PayoutConfig
	// ClaimLifetime is a pending claim's lifetime (CLAIM_LIFETIME; 0 = 14 days); ClaimLinkBase
	// (CLAIM_LINK_BASE) prefixes the link texted to the phone.
	ClaimLifetime time.Duration
	ClaimLinkBase string
	// ClaimLinkRateLimit throttles the public claim-link routes per client IP (zero: 30 a
	// minute).
	ClaimLinkRateLimit http.RateLimit
	// ClaimCodesPerIP bounds claim phone codes per client IP per hour (0 = 20).
	ClaimCodesPerIP int
	// OperatorToken (OPERATOR_TOKEN, at least 32 characters) authenticates the operator routes
	// /v1/admin/... (D11). Empty: they answer 503 SERVICE_UNAVAILABLE.
	OperatorToken string
}

// Service is the wired application.
type Service struct {
	Server  *http.Server
	App     *app.App
	Tenancy *tenancy.Service
	Finance *finance.Service
	Wallets *wallets.Service
	SafePay *safepayapp.Service
	Policy  *policyapp.Service
	Store   *postgres.Store
	Jobs    *jobs.Inserter
	runner  *jobs.Runner
	close   func()
}

// Close releases the database pool.
func (s *Service) Close() { s.close() }

// StartWorkers runs the background job workers until StopWorkers.
func (s *Service) StartWorkers(ctx context.Context) error { return s.runner.Start(ctx) }

// StopWorkers lets running jobs finish up to ctx's deadline.
func (s *Service) StopWorkers(ctx context.Context) error { return s.runner.Stop(ctx) }

// Migrate applies the project's embedded migrations, then River's job tables.
func Migrate(ctx context.Context, url string) (uint, error) {
	v, err := postgres.Migrate(url)
	if err != nil {
		return v, err
	}
	return v, jobs.Migrate(ctx, url)
}

// Build connects to the database (already migrated) and wires every adapter.
func Build(ctx context.Context, cfg Config, log *slog.Logger) (*Service, error) {
	if cfg.DatabaseURL == "" {
		return nil, errors.New("wiring: DatabaseURL is required")
	}
	idp, err := identity.NewSandbox(cfg.SessionSecret)
	if err != nil {
		return nil, err
	}
	db, err := postgres.Open(ctx, cfg.DatabaseURL, postgres.Options{MaxOpenConns: cfg.DBMaxConns})
	if err != nil {
		return nil, err
	}
	store := postgres.NewStore(db)
	inserter, err := jobs.NewInserter(db.DB, log)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	protect, err := newCipher(cfg.CipherKey, log)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	outbox := sms.NewSandbox(db)
	rails, err := payoutRails(cfg.Payouts, db)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	var appStore ports.Store = store
	if cfg.WrapStore != nil {
		appStore = cfg.WrapStore(store)
	}
	idem, err := kernel.NewIdempotency(kernel.IdempotencyDeps{Store: appStore, Clock: cfg.Clock, TTL: cfg.IdempotencyTTL})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	walletsSvc, err := wallets.New(wallets.Deps{Store: appStore, Jobs: inserter, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		Faucet: cfg.Faucet, MaxWalletsPerTenant: cfg.MaxWalletsPerTenant})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	tenancySvc, err := tenancy.New(tenancy.Deps{Store: appStore, Identity: idp, Clock: cfg.Clock, WalletOwners: walletsSvc})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	financeSvc, err := finance.New(finance.Deps{Store: appStore, Clock: cfg.Clock, Chains: cfg.ChainAdapters})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	policySvc, err := policyapp.New(policyapp.Deps{Store: appStore, Clock: cfg.Clock, Enforcement: cfg.PolicyEnforcement, Logger: log})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	safePaySvc, err := safepayapp.New(safepayapp.Deps{Store: appStore, Jobs: inserter, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		PolicyGate: policySvc})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	a, err := app.New(app.Deps{Store: appStore, Jobs: inserter, Clock: cfg.Clock,
		Chains: cfg.ChainAdapters,
		Cipher: protect, SMS: outbox, SMSOutbox: outbox, Screening: payout.SandboxScreening{}, Payouts: rails,
		QuoteLifetime: cfg.Payouts.QuoteLifetime, OfframpPollInterval: cfg.Payouts.PollInterval,
		SpendPolicy: policySvc, Logger: log,
		ClaimEscrows: claimEscrows(cfg.ChainAdapters), ClaimLifetime: cfg.ClaimLifetime, ClaimLinkBase: cfg.ClaimLinkBase,
		ClaimCodesPerIP: cfg.ClaimCodesPerIP})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	workers := river.NewWorkers()
	kernel.RegisterWorkers(workers, idem, walletsSvc, safePaySvc, a)
	runner, err := jobs.NewRunner(ctx, jobs.Config{
		DatabaseURL: cfg.DatabaseURL, Workers: workers, PeriodicJobs: kernel.PeriodicJobs(idem, walletsSvc, safePaySvc, a), Logger: log,
	})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	srv, err := http.New(http.Config{
		BodyLimitBytes:     cfg.BodyLimitBytes,
		RateLimit:          cfg.RateLimit,
		Capabilities:       Capabilities(cfg.Chains, cfg.ChainAdapters),
		Store:              store,
		OperatorToken:      cfg.OperatorToken,
		ClaimLinkRateLimit: cfg.ClaimLinkRateLimit,
	}, http.Services{App: a, Tenancy: tenancySvc, Finance: financeSvc, Wallets: walletsSvc, SafePay: safePaySvc, Policy: policySvc, Idempotency: idem}, log)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return &Service{Server: srv, App: a, Tenancy: tenancySvc, Finance: financeSvc, Wallets: walletsSvc, SafePay: safePaySvc, Policy: policySvc, Store: store, Jobs: inserter, runner: runner, close: func() { _ = db.Close() }}, nil
}

// newCipher builds the identifier cipher from the configured hex key, or from a random key
// that lives as long as this process when none is configured.
func newCipher(hexKey string, log *slog.Logger) (*cipher.AESGCM, error) {
	if hexKey != "" {
		return cipher.NewFromHex(hexKey)
	}
	log.Warn("CIPHER_KEY is not set: phone numbers and payout identifiers are encrypted with a key that dies with this process")
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return cipher.New(key)
}
