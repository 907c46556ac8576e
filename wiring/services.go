package wiring

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"github.com/corridorhq/corridor/app/requestlogs"
	"log/slog"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/adapters/issuer"
	"github.com/corridorhq/corridor/adapters/outside"
	"github.com/corridorhq/corridor/app/agents"
	"github.com/corridorhq/corridor/app/cards"
	"github.com/corridorhq/corridor/app/checkouts"
	"github.com/corridorhq/corridor/app/claims"
	"github.com/corridorhq/corridor/app/faucet"
	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/app/invoices"
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/app/mirror"
	"github.com/corridorhq/corridor/app/offramps"
	"github.com/corridorhq/corridor/app/operations"
	"github.com/corridorhq/corridor/app/policies"
	"github.com/corridorhq/corridor/app/ramps"
	"github.com/corridorhq/corridor/app/recipients"
	"github.com/corridorhq/corridor/app/safepayments"
	"github.com/corridorhq/corridor/app/tenancy"
	"github.com/corridorhq/corridor/app/treasuries"
	"github.com/corridorhq/corridor/app/twofactors"
	"github.com/corridorhq/corridor/app/wallets"
	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/ramp"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// servicePorts are the adapters Build made that the capabilities use.
type servicePorts struct {
	store    ports.Store // what the use cases see (cfg.WrapStore applied)
	identity ports.Identity
	jobs     ports.Jobs
	cipher   ports.Cipher
	sms      interface {
		ports.SMS
		ports.SMSOutbox
	}
	payouts   map[string]ports.PayoutRail
	screening ports.Screening
	custody   map[core.Environment]ports.CustodySigner
	// webhookSender delivers webhooks (the SSRF-checked sender, counted for the metrics).
	webhookSender webhooks.Sender
	// health follows the outside dependencies (payout providers, SMS, the card issuer).
	health *outside.Health
}

// registry is the service registry: one service per capability of app/, and the
// Idempotency-Key store. The composition root owns it; the HTTP adapter (httpDeps), the console
// and the job workers (jobCapabilities) each take from it what they use.
type registry struct {
	Tenancy    *tenancy.Service
	Finance    *finance.Service
	Wallets    *wallets.Service
	Faucet     *faucet.Service
	Mirror     *mirror.Service
	SafePay    *safepayments.Service
	Policy     *policies.Service
	Offramp    *offramps.Service
	Claims     *claims.Service
	Recipients *recipients.Service
	Agents     *agents.Service
	Treasury   *treasuries.Service
	Cards      *cards.Service
	Ramps      *ramps.Service
	TwoFactor  *twofactors.Service
	Invoices   *invoices.Service
	Webhooks   *webhooks.Service
	Checkout   *checkouts.Service
	// Operations is the operator's capability, built once the others are (it runs their
	// operator actions).
	Operations  *operations.Service
	Idempotency *kernel.Idempotency
	// RequestLogs reads the request log and prunes it; Recorder writes it off the request
	// path (built by New beside the database, stopped by Close after the server).
	RequestLogs *requestlogs.Service
	Recorder    *requestlogs.Recorder
}

// httpDeps are the services the HTTP adapter's handler types hold.
func (s *registry) httpDeps() http.Deps {
	return http.Deps{Tenancy: s.Tenancy, Finance: s.Finance, Wallets: s.Wallets, Faucet: s.Faucet, SafePay: s.SafePay, Policy: s.Policy,
		Offramp: s.Offramp, Claims: s.Claims, Recipients: s.Recipients, Agents: s.Agents, Treasury: s.Treasury,
		Cards: s.Cards, Ramps: s.Ramps, TwoFactor: s.TwoFactor, Invoices: s.Invoices, Webhooks: s.Webhooks,
		Checkout: s.Checkout, Operations: s.Operations, Idempotency: s.Idempotency,
		RequestLogs: s.RequestLogs, Recorder: s.Recorder}
}

// newServices builds one service per capability of app/ and plugs them into each other
// through the small interfaces each caller declares: tenancy asks wallets which wallets a
// signer owns; Safe payments and off-ramp payments ask policy for its gates.
func newServices(cfg Config, p servicePorts, log *slog.Logger) (*registry, error) {
	s := &registry{}
	var err error
	var sandboxIssuer ports.CardIssuer = issuer.NewSandbox()
	if cfg.DecorateIssuer != nil {
		sandboxIssuer = cfg.DecorateIssuer(sandboxIssuer)
	}
	cardIssuer := outside.Issuer{CardIssuer: sandboxIssuer, Health: p.health}
	if s.Idempotency, err = kernel.NewIdempotency(kernel.IdempotencyDeps{Store: p.store, Clock: cfg.Clock, TTL: cfg.IdempotencyTTL}); err != nil {
		return s, err
	}
	if err := newWalletServices(cfg, p, s, cardIssuer.Name(), log); err != nil {
		return s, err
	}
	// Agents come before cards: cards take the agents' card budget and issue an agent's card by
	// the agents' rule, and nothing in agents calls cards.
	if s.Agents, err = agents.New(agents.Deps{Store: p.store, Clock: cfg.Clock, Wallets: agentWallets{s.Wallets},
		Logger: log}); err != nil {
		return s, err
	}
	if s.Tenancy, err = tenancy.New(tenancy.Deps{Store: p.store, Identity: p.identity, Clock: cfg.Clock, WalletOwners: s.Wallets,
		Agents: s.Agents, KeyCacheTTL: cfg.APIKeyCacheTTL}); err != nil {
		return s, err
	}
	if s.Finance, err = finance.New(finance.Deps{Store: p.store, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		Dependencies: dependencyReport(p.health)}); err != nil {
		return s, err
	}
	if s.Policy, err = policies.New(policies.Deps{Store: p.store, Clock: cfg.Clock, Enforcement: cfg.PolicyEnforcement, Logger: log,
		Agents: s.Agents}); err != nil {
		return s, err
	}
	if s.TwoFactor, err = twofactors.New(twofactors.Deps{Store: p.store, Cipher: p.cipher, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		CoolingOff: cfg.ContactCoolingOff, PlatformAddresses: []string{liquidationAddress(cfg)}}); err != nil {
		return s, err
	}
	// A Safe payment's final save is a domain event treasury reacts to in the same unit of
	// work (a sweep's outcome): Safe payments raise it without knowing who listens.
	paymentsFinalized := &kernel.Subscribers[safepay.Finalized]{}
	if s.SafePay, err = safepayments.New(safepayments.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		Screening:  p.screening,
		PolicyGate: s.Policy, AgentGate: s.Agents, ApprovalGate: s.TwoFactor, RelayerBudget: kernel.RelayerBudget(cfg.RelayerTxBudget),
		Finalized: paymentsFinalized, Custody: p.custody, Mirror: s.Mirror}); err != nil {
		return s, err
	}
	if err := newOfframp(cfg, p, s, log); err != nil {
		return s, err
	}
	s.Treasury, err = treasuries.New(treasuries.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		Wallets: treasuryWallets{s.Wallets}, Payments: treasuryPayments{s.SafePay}, PaymentsFinalized: paymentsFinalized, Logger: log})
	if err != nil {
		return s, err
	}
	s.Cards, err = cards.New(cards.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Issuer: cardIssuer,
		Provider: cfg.IssuingProvider, Modules: cardSpendModules(cfg.ChainAdapters), Chains: cfg.ChainAdapters, PolicyGate: s.Policy,
		AgentBudget: s.Agents, Mirror: s.Mirror, AuthorizationLifetime: cfg.CardAuthorizationLifetime})
	if err != nil {
		return s, err
	}
	s.Ramps, err = ramps.New(rampsDeps(cfg, p, s))
	if err != nil {
		return s, err
	}
	return s, newMerchantServices(cfg, p, s, log)
}

// newMerchantServices builds invoices, webhooks and hosted checkout, the capabilities built
// last: they take Safe payments, wallets and policy, and nothing takes them.
func newMerchantServices(cfg Config, p servicePorts, s *registry, log *slog.Logger) error {
	arbiter, err := invoiceArbiterKey(cfg.InvoiceArbiterKey)
	if err != nil {
		return err
	}
	s.Invoices, err = invoices.New(invoices.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		Wallets: invoiceWallets{s.Wallets}, Payments: invoicePayments{s.SafePay}, ArbiterKey: arbiter,
		PollInterval: cfg.InvoicePollInterval, Logger: log})
	if err != nil {
		return err
	}
	s.Webhooks, err = webhooks.New(webhooks.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Cipher: p.cipher,
		Sender: outside.Webhooks{WebhookSender: p.webhookSender}, Config: cfg.Webhooks, Logger: log})
	if err != nil {
		return err
	}
	s.Checkout, err = checkouts.New(checkouts.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		Config: cfg.Checkout, Logger: log, Policy: s.Policy})
	return err
}

// newWalletServices builds the three wallet-side capabilities: wallets, the sandbox faucet and
// the ledger mirror of on-chain transfers. Card settlements debit the clearing account of the
// issuer the cards capability uses (cardIssuer).
func newWalletServices(cfg Config, p servicePorts, s *registry, cardIssuer string, log *slog.Logger) error {
	modules := cardSpendModules(cfg.ChainAdapters)
	var err error
	if s.Wallets, err = wallets.New(wallets.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		MaxWalletsPerTenant: cfg.MaxWalletsPerTenant, RelayerBudget: kernel.RelayerBudget(cfg.RelayerTxBudget),
		CardModules: modules, Custody: p.custody}); err != nil {
		return err
	}
	if s.Faucet, err = faucet.New(faucet.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		Limits: cfg.Faucet}); err != nil {
		return err
	}
	s.Mirror, err = mirror.New(mirror.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		Confirmations: cfg.ChainConfirmations, Logger: log, CardModules: modules, CardIssuer: cardIssuer})
	return err
}

// webhookTimeout is one delivery attempt's bound (the configured one, or the default).
func webhookTimeout(c webhooks.Config) time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return webhooks.DefaultConfig.Timeout
}

// rampsDeps wires sandbox ramps: on-ramp credits through the wallets capability's faucet job,
// off-ramp debits through Safe payments.
func rampsDeps(cfg Config, p servicePorts, s *registry) ramps.Deps {
	const usd = 1_000_000 // base units per USD
	liquidation := liquidationAddress(cfg)
	return ramps.Deps{Store: p.store, Clock: cfg.Clock, Credits: s.Faucet, Payments: rampPayments{s.SafePay},
		Limits:             ramp.Limits{PerTransaction: cfg.Ramps.MaxAmountUsd * usd, PerTenantDaily: cfg.Ramps.DailyCapUsd * usd},
		LiquidationAddress: liquidation}
}

// liquidationAddress is the platform's address off-ramped USDC is paid to.
func liquidationAddress(cfg Config) string {
	if cfg.Ramps.LiquidationAddress != "" {
		return cfg.Ramps.LiquidationAddress
	}
	return DefaultLiquidationAddress
}

// rampPayments proposes off-ramp payments through the Safe payments capability.
type rampPayments struct{ payments *safepayments.Service }

func (r rampPayments) ReadRampPayment(ctx context.Context, p auth.Principal, in safepay.Request) (ramps.PaymentRead, error) {
	return proposal(ctx, r.payments, p, in)
}

// proposal prepares a Safe payment and returns the typed step that proposes it.
func proposal(ctx context.Context, payments *safepayments.Service, p auth.Principal, in safepay.Request) (func(context.Context, auth.Principal) (safepay.Payment, error), error) {
	read, err := payments.ReadProposal(ctx, p, in)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, p auth.Principal) (safepay.Payment, error) {
		return payments.Propose(ctx, p, read)
	}, nil
}

// invoiceWallets provisions invoice hold Safes through the wallets capability, with purpose
// ESCROW.
type invoiceWallets struct{ wallets *wallets.Service }

func (w invoiceWallets) CreateHoldWallet(ctx context.Context, p auth.Principal, in invoices.HoldWallet) (wallet.Wallet, error) {
	threshold, chainID := in.Threshold, in.ChainID
	return w.wallets.CreateWallet(ctx, p, wallets.CreateWalletInput{Name: in.Name, Owners: in.Owners, Threshold: &threshold,
		ChainID: &chainID, Purpose: wallet.PurposeEscrow})
}

// invoicePayments proposes and signs invoice settlements and bill payments through the Safe
// payments capability.
type invoicePayments struct{ payments *safepayments.Service }

func (i invoicePayments) ReadPayment(ctx context.Context, p auth.Principal, in safepay.Request) (invoices.PaymentRead, error) {
	return proposal(ctx, i.payments, p, in)
}

func (i invoicePayments) ReadSignature(ctx context.Context, p auth.Principal, paymentID, signature string) (invoices.PaymentRead, error) {
	read, err := i.payments.ReadSignature(ctx, p, paymentID, signature)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, p auth.Principal) (safepay.Payment, error) {
		return i.payments.Sign(ctx, p, read)
	}, nil
}

// devInvoiceArbiterSeed derives the TEST arbiter key when INVOICE_ARBITER_KEY is unset. It is
// public, so that key only ever signs sandbox Safes: invoices are sandbox only.
const devInvoiceArbiterSeed = "corridor sandbox invoice arbiter v1"

// invoiceArbiterKey parses INVOICE_ARBITER_KEY (hex secp256k1), or derives the dev key.
func invoiceArbiterKey(hexKey string) (*ecdsa.PrivateKey, error) {
	if strings.TrimSpace(hexKey) == "" {
		return crypto.ToECDSA(crypto.Keccak256([]byte(devInvoiceArbiterSeed)))
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(hexKey), "0x"))
	if err != nil {
		return nil, fmt.Errorf("INVOICE_ARBITER_KEY: not a secp256k1 private key in hex: %w", err)
	}
	return key, nil
}

// agentWallets provisions an agent's Safe through the wallets capability, with purpose AGENT.
type agentWallets struct{ wallets *wallets.Service }

func (a agentWallets) ProvisionAgentWallet(ctx context.Context, p auth.Principal, in agents.WalletInput) (wallet.Wallet, error) {
	return a.wallets.CreateWallet(ctx, p, wallets.CreateWalletInput{Name: in.Name, Owners: in.Owners, Threshold: in.Threshold,
		ChainID: in.ChainID, Purpose: wallet.PurposeAgent})
}

// treasuryWallets provisions treasury bucket Safes through the wallets capability.
type treasuryWallets struct{ wallets *wallets.Service }

func (w treasuryWallets) CreateBucketWallet(ctx context.Context, p auth.Principal, in treasuries.BucketWallet) (wallet.Wallet, error) {
	return w.wallets.CreateWallet(ctx, p, wallets.CreateWalletInput{Name: in.Name, Owners: in.Owners, Threshold: in.Threshold,
		ChainID: in.ChainID, Purpose: wallet.PurposeTreasury})
}

// treasuryPayments proposes sweep payments through the Safe payments capability.
type treasuryPayments struct{ payments *safepayments.Service }

func (t treasuryPayments) ReadSweepPayment(ctx context.Context, p auth.Principal, in safepay.Request) (treasuries.PaymentRead, error) {
	return proposal(ctx, t.payments, p, in)
}

// jobCapabilities are the services with background work, in the order their workers register.
func jobCapabilities(s *registry, extra ...kernel.Jobs) []kernel.Jobs {
	return append([]kernel.Jobs{s.Idempotency, s.Wallets, s.Faucet, s.Mirror, s.SafePay, s.Offramp, s.Claims, s.Recipients, s.Treasury, s.Cards, s.Invoices, s.Webhooks, s.Checkout, s.Finance}, extra...)
}

// newWorkers is River's registry with every capability's workers.
func newWorkers(s *registry, extra ...kernel.Jobs) *river.Workers {
	workers := river.NewWorkers()
	kernel.RegisterWorkers(workers, jobCapabilities(s, extra...)...)
	return workers
}
