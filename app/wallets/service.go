package wallets

import (
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
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
	// MaxWalletsPerTenant bounds wallets per tenant and environment; 0 = wallet.MaxWalletsPerTenant.
	MaxWalletsPerTenant int
	// RelayerBudget bounds relayer-paid deployments per tenant, environment and day.
	RelayerBudget kernel.RelayerBudget
	// CardModules are the card spend modules per environment (the chain adapters that serve
	// one with a non-zero address). A TEST wallet created where there is one enables it in its
	// Safe's setup. Nil or empty: no card modules.
	CardModules map[core.Environment]ports.CardSpendModule
	// Custody are the custody signers per environment (docs/decisions/wallets.md): a custodial wallet's owner key is
	// made in its environment's signer. A missing environment answers CUSTODY_UNAVAILABLE.
	Custody map[core.Environment]ports.CustodySigner
}

// Service runs the wallets use cases and jobs.
type Service struct {
	store               kernel.Units[txView]
	jobs                ports.Jobs
	clock               ports.Clock
	chains              kernel.Chains
	maxWalletsPerTenant int
	relayerBudget       kernel.RelayerBudget
	cardModules         kernel.CardModules
	custody             map[core.Environment]ports.CustodySigner
}

var _ kernel.Jobs = (*Service)(nil)

// New checks the wiring and fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("wallets", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Jobs", Value: d.Jobs}); err != nil {
		return nil, err
	}
	return &Service{store: kernel.NewUnits(d.Store, narrow), jobs: d.Jobs, clock: kernel.ClockOrSystem(d.Clock), chains: d.Chains,
		maxWalletsPerTenant: d.MaxWalletsPerTenant, relayerBudget: d.RelayerBudget,
		cardModules: d.CardModules, custody: d.Custody}, nil
}
