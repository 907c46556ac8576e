package faucet

import (
	"errors"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// Deps are the ports and settings of the faucet.
type Deps struct {
	Store ports.Store
	Jobs  ports.Jobs
	Clock ports.Clock // nil: the wall clock
	// Chains are the configured chains per environment; a missing environment answers
	// CHAIN_UNAVAILABLE on the operations that need it (docs/decisions/tenancy.md).
	Chains map[core.Environment]ports.Chain
	// Limits bound sandbox drips; zero fields take wallet.DefaultFaucetLimits.
	Limits wallet.FaucetLimits
}

// Service runs the faucet's use cases and its drip job.
type Service struct {
	store  kernel.Units[txView]
	jobs   ports.Jobs
	clock  ports.Clock
	chains kernel.Chains
	limits wallet.FaucetLimits
}

var _ kernel.Jobs = (*Service)(nil)

// New checks the wiring and fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("faucet", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Jobs", Value: d.Jobs}); err != nil {
		return nil, err
	}
	return &Service{store: kernel.NewUnits(d.Store, narrow), jobs: d.Jobs, clock: kernel.ClockOrSystem(d.Clock), chains: d.Chains,
		limits: d.Limits.WithDefaults()}, nil
}

// receiptPollInterval is how soon the drip job looks again at a transaction still pending.
const receiptPollInterval = time.Second

// errStepDone: another run already moved the drip on; this run has nothing left to do.
var errStepDone = errors.New("step already done")
