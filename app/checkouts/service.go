// Package checkout is the hosted-checkout capability (docs/decisions/checkout.md, docs/checkout.md): a
// merchant creates a payment request in USD; the payer sends USDC to a fresh CREATE2 deposit
// address shown on the hosted payment page; a durable watcher marks the checkout pending,
// completed or failed, sweeps the deposit into the service's own account and credits the
// merchant's service balance on the ledger; refunds return what was received, never more.
// Every state change records its event (payment.*, refund.processed) in its own transaction.
package checkouts

import (
	"context"
	"log/slog"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ports"
)

// Config tunes checkouts; zero fields take DefaultConfig's.
type Config struct {
	// Confirmations is the depth a transfer needs before it counts toward COMPLETED.
	Confirmations uint64
	// Lifetime is how long a checkout waits for its payment (expires_at = created + Lifetime).
	Lifetime time.Duration
	// PollInterval is the watcher's period.
	PollInterval time.Duration
	// LateWindow is how long after expiry the watcher still reads an address, so late funds
	// are swept and credited (and can be refunded).
	LateWindow time.Duration
}

// DefaultConfig: 3 confirmations, 30 minutes to pay, a pass every 5 s, late funds for 24 h.
var DefaultConfig = Config{Confirmations: 3, Lifetime: 30 * time.Minute, PollInterval: 5 * time.Second, LateWindow: 24 * time.Hour}

// Deps are the ports of the checkout capability.
type Deps struct {
	Store  ports.Store
	Jobs   ports.Jobs
	Clock  ports.Clock // nil: the wall clock
	Chains map[core.Environment]ports.Chain
	Config Config
	Logger *slog.Logger
	// Policy applies the service balance's spend policy to a refund (the spend guard's policy
	// step for a debit of the service balance).
	Policy BalancePolicy
}

// BalancePolicy decides a spend of the service balance against its spend policy: denied is a
// refusal to answer (POLICY_DENIED), err a failure to fail closed on.
type BalancePolicy interface {
	GateBalanceSpend(ctx context.Context, p auth.Principal, referenceID string, amount int64, counterparty string) (denied *core.Error, err error)
}

// Service runs the checkout use cases and the watcher.
type Service struct {
	store  kernel.Units[txView]
	jobs   ports.Jobs
	clock  ports.Clock
	chains map[core.Environment]ports.Chain
	cfg    Config
	log    *slog.Logger
	policy BalancePolicy
	guard  *kernel.SpendGuard
}

var _ kernel.Jobs = (*Service)(nil)

// New checks the wiring and fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("checkout", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Jobs", Value: d.Jobs},
		kernel.Port{Name: "Policy", Value: d.Policy}); err != nil {
		return nil, err
	}
	cfg := d.Config
	if cfg.Confirmations == 0 {
		cfg.Confirmations = DefaultConfig.Confirmations
	}
	if cfg.Lifetime <= 0 {
		cfg.Lifetime = DefaultConfig.Lifetime
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultConfig.PollInterval
	}
	if cfg.LateWindow <= 0 {
		cfg.LateWindow = DefaultConfig.LateWindow
	}
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Service{store: kernel.NewUnits(d.Store, narrow), jobs: d.Jobs, clock: kernel.ClockOrSystem(d.Clock), chains: d.Chains, cfg: cfg, log: log, policy: d.Policy,
		guard: kernel.NewSpendGuard(kernel.ClockOrSystem(d.Clock).Now)}, nil
}

// Confirmations is the configured depth (shown on the payment page).
func (s *Service) Confirmations() uint64 { return s.cfg.Confirmations }

// Available reports whether env's chain has a checkout deposit factory.
func (s *Service) Available(env core.Environment) bool {
	_, _, err := s.deposits(env)
	return err == nil
}

// deposits is env's chain and its checkout factory. An environment without a chain answers
// CHAIN_UNAVAILABLE (docs/decisions/tenancy.md: a LIVE operation that needs an unconfigured chain); a chain without a
// deposit factory is a build that does not serve checkout there (FEATURE_NOT_AVAILABLE).
func (s *Service) deposits(env core.Environment) (ports.Chain, ports.CheckoutDeposits, error) {
	c := s.chains[env]
	if c == nil {
		return nil, nil, core.E(core.CodeChainUnavailable, "hosted checkout is not available in %s: no chain is configured for it in this deployment", env)
	}
	d, ok := c.(ports.CheckoutDeposits)
	if !ok || d.CheckoutFactoryAddress().Cmp([20]byte{}) == 0 {
		return nil, nil, core.E(core.CodeFeatureNotAvailable, "hosted checkout is not available in %s: the chain has no checkout deposit factory", env)
	}
	return c, d, nil
}

// Token is env's USDC address and chain id (the payment page's EIP-681 URI), or false.
func (s *Service) Token(env core.Environment) (string, int64, bool) {
	c, _, err := s.deposits(env)
	if err != nil {
		return "", 0, false
	}
	return c.USDCAddress().Hex(), c.ChainID(), true
}
