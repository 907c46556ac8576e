package agents

import (
	"context"
	"log/slog"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// WalletInput is what an agent's Safe is made of: the body of POST /v1/agents/{id}/wallet.
type WalletInput struct {
	Name      string
	Owners    []wallet.OwnerInput
	Threshold *int
	ChainID   *int64
}

// WalletProvisioner creates a Safe wallet with purpose AGENT (the wallets capability). It runs
// inside the caller's unit of work: the context carries the transaction.
type WalletProvisioner interface {
	ProvisionAgentWallet(ctx context.Context, p auth.Principal, in WalletInput) (wallet.Wallet, error)
}

// Deps are the ports of the agents capability.
type Deps struct {
	Store   ports.Store
	Clock   ports.Clock // nil: the wall clock
	Wallets WalletProvisioner
	Logger  *slog.Logger // nil: discard
}

// Service runs the agents use cases.
type Service struct {
	store   ports.Store
	clock   ports.Clock
	wallets WalletProvisioner
	log     *slog.Logger
	guard   *kernel.SpendGuard
}

// New checks the wiring and fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("agents", kernel.Port{Name: "Store", Value: d.Store},
		kernel.Port{Name: "Wallets", Value: d.Wallets}); err != nil {
		return nil, err
	}
	log := d.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	clock := kernel.ClockOrSystem(d.Clock)
	return &Service{store: d.Store, clock: clock, wallets: d.Wallets, log: log, guard: kernel.NewSpendGuard(clock.Now)}, nil
}
