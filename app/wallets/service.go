package wallets

import (
	"io"
	"log/slog"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// Deps are the ports and settings of the wallets capability.
type Deps struct {
	Store ports.Store
	Jobs  ports.Jobs
	Clock ports.Clock // nil: the wall clock
	// Chains are the configured chains per environment; a missing environment answers
	// CHAIN_UNAVAILABLE on the operations that need it (docs/decisions/tenancy.md).
	Chains map[core.Environment]ports.Chain
	// Faucet bounds sandbox drips; zero fields take wallet.DefaultFaucetLimits.
	Faucet wallet.FaucetLimits
	// MaxWalletsPerTenant bounds wallets per tenant and environment; 0 = wallet.MaxWalletsPerTenant.
	MaxWalletsPerTenant int
	// Confirmations is the confirmation depth per environment: the ledger mirror indexes only
	// blocks at least this many blocks below the head (0: up to the head).
	Confirmations map[core.Environment]uint64
	// Logger records what the indexer skipped or undid; nil discards it.
	Logger *slog.Logger
	// RelayerBudget bounds relayer-paid deployments per tenant, environment and day.
	RelayerBudget kernel.RelayerBudget
	// CardModules are the card spend modules per environment (the chain adapters that serve
	// one with a non-zero address). A TEST wallet created where there is one enables it in its
	// Safe's setup, and the ledger mirror books the module's settlements against the issuer's
	// clearing account. Nil or empty: no card modules.
	CardModules map[core.Environment]ports.CardSpendModule
	// CardIssuer names the issuer whose clearing account card settlements debit
	// (ledger.IssuerClearing); "" is DefaultCardIssuer.
	CardIssuer string
	// Custody are the custody signers per environment (docs/decisions/wallets.md): a custodial wallet's owner key is
	// made in its environment's signer. A missing environment answers CUSTODY_UNAVAILABLE.
	Custody map[core.Environment]ports.CustodySigner
}

// DefaultCardIssuer is the card issuer when Deps.CardIssuer is empty: the sandbox issuer.
const DefaultCardIssuer = "sandbox"

// Service runs the wallets use cases and jobs.
type Service struct {
	store               ports.Store
	jobs                ports.Jobs
	clock               ports.Clock
	chains              kernel.Chains
	faucet              wallet.FaucetLimits
	maxWalletsPerTenant int
	confirmations       map[core.Environment]uint64
	log                 *slog.Logger
	relayerBudget       kernel.RelayerBudget
	cardModules         map[core.Environment]ports.CardSpendModule
	cardIssuer          string
	custody             map[core.Environment]ports.CustodySigner
}

var _ kernel.Jobs = (*Service)(nil)

// New checks the wiring and fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("wallets", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Jobs", Value: d.Jobs}); err != nil {
		return nil, err
	}
	return &Service{store: d.Store, jobs: d.Jobs, clock: kernel.ClockOrSystem(d.Clock), chains: d.Chains,
		faucet: d.Faucet.WithDefaults(), maxWalletsPerTenant: d.MaxWalletsPerTenant,
		confirmations: d.Confirmations, log: loggerOrDiscard(d.Logger), relayerBudget: d.RelayerBudget,
		cardModules: d.CardModules, cardIssuer: cardIssuerOrDefault(d.CardIssuer), custody: d.Custody}, nil
}

func cardIssuerOrDefault(issuer string) string {
	if issuer == "" {
		return DefaultCardIssuer
	}
	return issuer
}

// cardModule is the environment's card spend module, nil when it has none.
func (s *Service) cardModule(env core.Environment) ports.CardSpendModule {
	if m, ok := s.cardModules[env]; ok && m != nil && m.CardModuleAddress() != (common.Address{}) {
		return m
	}
	return nil
}

func loggerOrDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return l
}
