package cards

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ports"
)

// PolicyGate applies the spend policy to an authorization that the card's own rules approved.
// It runs inside the authorization's unit of work (a savepoint of it), cumulatively: the
// card's spend in each window plus the amount against the policy's caps, the most restrictive
// of policy and card limits winning. It never returns an error for a policy failure: enforce
// mode answers a decline (POLICY_DENIED, or POLICY_UNAVAILABLE when the policy subsystem
// fails: closed), log mode records and approves, off evaluates nothing.
type PolicyGate interface {
	GateCardAuthorization(ctx context.Context, c card.Card, a card.Authorization, spent card.Spend) (card.PolicyOutcome, error)
}

// AgentCardBudget is the agents capability's hook for cards bound to an agent (card.AgentID):
// inside the authorization's unit of work, ConsumeAgentCardSpend charges the agent's windows
// with the amount (returning a decline reason such as AGENT_LIMIT or AGENT_SUSPENDED, or ""),
// and ReleaseAgentCardSpend gives an authorization's charge back on reversal and when the ledger
// refuses the hold after the charge (the charge was made in a savepoint that is then rolled
// back, so Release must accept an authorization it holds nothing for). AdjustAgentCardSpend
// lowers an authorization's charge to what a partial capture took, giving the uncaptured rest
// back to the windows it was counted in. Nil until the
// agents capability is wired; a bound card's authorizations are then decided on the card's own
// limits only.
type AgentCardBudget interface {
	ConsumeAgentCardSpend(ctx context.Context, tenantID string, env core.Environment, agentID, authorizationID string, amount int64, at time.Time) (decline string, err error)
	ReleaseAgentCardSpend(ctx context.Context, tenantID, authorizationID string) error
	AdjustAgentCardSpend(ctx context.Context, tenantID, authorizationID string, captured int64) error
}

// Deps are the ports of the card capability.
type Deps struct {
	Store ports.Store
	Jobs  ports.Jobs
	Clock ports.Clock // nil: the wall clock
	// Issuer is the card issuer; Provider is ISSUING_PROVIDER ("" = safe_debit).
	Issuer   ports.CardIssuer
	Provider ports.IssuingProvider
	// Modules are the card spend modules per environment; an environment without one cannot
	// issue wallet cards (CHAIN_UNAVAILABLE) nor settle them.
	Modules    map[core.Environment]ports.CardSpendModule
	Chains     map[core.Environment]ports.Chain
	PolicyGate PolicyGate
	// AgentBudget is optional (see AgentCardBudget).
	AgentBudget AgentCardBudget
	// Mirror is optional (see MirrorCatchUp): without it a Safe card decides on the mirror as
	// the indexer left it.
	Mirror MirrorCatchUp
	// AuthorizationLifetime is how long an approval may stay uncaptured before the expiry pass
	// releases it (0: card.DefaultAuthorizationLifetime).
	AuthorizationLifetime time.Duration
	// Guard is the spend guard authorizations and card issues are decided by (nil: the one
	// kernel.SpendGuard on Clock); tests put a double around it.
	Guard kernel.SpendDecider
}

// Service runs the card use cases and the settlement job.
type Service struct {
	store       kernel.Units[txView]
	jobs        ports.Jobs
	clock       ports.Clock
	issuer      ports.CardIssuer
	provider    ports.IssuingProvider
	modules     map[core.Environment]ports.CardSpendModule
	chains      kernel.Chains
	policyGate  PolicyGate
	agentBudget AgentCardBudget
	mirror      MirrorCatchUp
	lifetime    time.Duration
	guard       kernel.SpendDecider
	// accountCards are the funding-account cards read so far (PrepareAuthorize).
	accountCards accountCards
}

// MirrorCatchUp brings the ledger's mirror of a wallet's Safe up to what the chain holds for
// it (the wallets capability), so an authorization does not decline INSUFFICIENT_SAFE_BALANCE
// for USDC the wallet already reports. It makes chain calls and runs outside any unit of work.
type MirrorCatchUp interface {
	CatchUpWalletMirror(ctx context.Context, tenantID string, env core.Environment, walletID string) error
}

// New checks the wiring and fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("cards", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Jobs", Value: d.Jobs},
		kernel.Port{Name: "Issuer", Value: d.Issuer}, kernel.Port{Name: "PolicyGate", Value: d.PolicyGate}); err != nil {
		return nil, err
	}
	provider := d.Provider
	if provider == "" {
		provider = ports.IssuingSafeDebit
	}
	lifetime := d.AuthorizationLifetime
	if lifetime <= 0 {
		lifetime = card.DefaultAuthorizationLifetime
	}
	guard := d.Guard
	if guard == nil {
		guard = kernel.NewSpendGuard(kernel.ClockOrSystem(d.Clock).Now)
	}
	return &Service{store: kernel.NewUnits(d.Store, narrow), jobs: d.Jobs, clock: kernel.ClockOrSystem(d.Clock), issuer: d.Issuer, provider: provider,
		modules: d.Modules, chains: d.Chains, policyGate: d.PolicyGate, agentBudget: d.AgentBudget, mirror: d.Mirror, lifetime: lifetime,
		guard: guard}, nil
}

// module returns the environment's card spend module, or CHAIN_UNAVAILABLE.
func (s *Service) module(env core.Environment) (ports.CardSpendModule, error) {
	if m, ok := s.modules[env]; ok && m != nil {
		return m, nil
	}
	return nil, core.E(core.CodeChainUnavailable, "no card spend module is configured for %s in this deployment", env)
}

func (s *Service) now() time.Time { return s.clock.Now().UTC().Truncate(time.Microsecond) }
