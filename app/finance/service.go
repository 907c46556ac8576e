package finance

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// Deps are the ports of the finance capability.
type Deps struct {
	Store ports.Store
	Clock ports.Clock // nil: the wall clock
	// Chains are the configured chains per environment; reconciliation answers
	// CHAIN_UNAVAILABLE for an environment without one (docs/decisions/tenancy.md).
	Chains map[core.Environment]ports.Chain
	// Dependencies reports the outside dependencies' health (payout providers, SMS, the card
	// issuer) for the status report; nil: none are reported.
	Dependencies func() []DependencyHealth
}

// Service runs the finance use cases.
type Service struct {
	store  kernel.Units[txView]
	ping   func(ctx context.Context) error // the database's health, for the status report
	clock  ports.Clock
	chains kernel.Chains
	deps   func() []DependencyHealth
}

// New checks the wiring and fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("finance", kernel.Port{Name: "Store", Value: d.Store}); err != nil {
		return nil, err
	}
	return &Service{store: kernel.NewUnits(d.Store, narrow), ping: d.Store.Ping, clock: kernel.ClockOrSystem(d.Clock), chains: d.Chains, deps: d.Dependencies}, nil
}
