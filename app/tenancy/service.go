package tenancy

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// WalletOwners tells which of the given wallets signer still owns. Revoking a member does not
// change a Safe's owners on chain, so the revoke answer lists the wallets an operator should
// still rotate; the wallets capability reads that from the chain.
type WalletOwners interface {
	WalletsOwnedBy(ctx context.Context, wallets []wallet.Wallet, signer string) []string
}

// Agents answers whether an agent key's agent may act: AGENT_SUSPENDED while it is suspended.
// It runs inside the authentication's unit of work.
type Agents interface {
	RequireActiveAgent(ctx context.Context, tenantID string, env core.Environment, agentID string) error
}

// Deps are the ports of the tenancy capability.
type Deps struct {
	Store    ports.Store
	Identity ports.Identity
	Clock    ports.Clock // nil: the wall clock
	// WalletOwners answers which wallets a revoked member's signer still owns.
	WalletOwners WalletOwners
	// Agents declines the keys of suspended agents at authentication.
	Agents Agents
	// KeyCacheTTL is how long an API key's row is reused by authentication before it is read
	// again (API_KEY_CACHE_TTL): 0 takes DefaultKeyCacheTTL, a negative value turns the cache
	// off. A revocation through this service takes effect at once; one made by another
	// instance within this time.
	KeyCacheTTL time.Duration
}

// Service runs the tenancy use cases.
type Service struct {
	store        kernel.Units[txView]
	identity     ports.Identity
	clock        ports.Clock
	walletOwners WalletOwners
	agents       Agents
	keys         *keyCache
}

// New checks the wiring and fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("tenancy", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Identity", Value: d.Identity},
		kernel.Port{Name: "WalletOwners", Value: d.WalletOwners}, kernel.Port{Name: "Agents", Value: d.Agents}); err != nil {
		return nil, err
	}
	if d.KeyCacheTTL == 0 {
		d.KeyCacheTTL = DefaultKeyCacheTTL
	}
	return &Service{store: kernel.NewUnits(d.Store, narrow), identity: d.Identity, clock: kernel.ClockOrSystem(d.Clock), walletOwners: d.WalletOwners,
		agents: d.Agents, keys: newKeyCache(d.KeyCacheTTL)}, nil
}

// Now is the clock the use cases judge key expiry by, so a response computed outside a use
// case (a key's status) agrees with them.
func (s *Service) Now() time.Time { return s.clock.Now() }

// ForgetCachedKeys drops every cached API-key row: another replica committed a revocation
// (docs/decisions/scaling.md). The key revocation listener calls it.
func (s *Service) ForgetCachedKeys() { s.keys.forget() }
