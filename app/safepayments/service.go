package safepayments

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

// PolicyGate decides the spend policy attached to a Safe payment's source wallet, per the
// rollout mode. denied is the POLICY_DENIED error to answer when enforce mode blocks the
// payment (the payment is then recorded FAILED); err aborts the proposal (enforce mode fails
// closed with POLICY_UNAVAILABLE). It runs inside the proposal's unit of work.
type PolicyGate interface {
	GateSafePayment(ctx context.Context, p auth.Principal, pay safepay.Payment) (denied *core.Error, err error)
}

// AgentGate applies an agent's spend limits to a payment proposed from the agent's wallet
// (AGENT_LIMIT, AGENT_SUSPENDED, AGENT_LIMIT_UNAVAILABLE); a payment from any other wallet
// passes. It runs inside the proposal's unit of work, before the policy gate.
type AgentGate interface {
	GateAgentPayment(ctx context.Context, p auth.Principal, pay safepay.Payment) error
}

// ApprovalGate applies contacts (PAYEE_COOLING_OFF, NEW_PAYEE_NOT_SAVED) and two-factor
// approval (TWOFA_*) to a payment that passed the spend policy and agent limits. refused is
// answered after the unit of work commits what the gate wrote (a new challenge), with no
// payment recorded; challengeID is the client's twofaChallengeId, redeemed for pay.ID when the
// payment is recorded; err aborts the proposal.
type ApprovalGate interface {
	GateSafePayment(ctx context.Context, p auth.Principal, pay safepay.Payment, challengeID string) (refused *core.Error, err error)
}

// Deps are the ports of the Safe payments capability.
type Deps struct {
	Store ports.Store
	Jobs  ports.Jobs
	Clock ports.Clock // nil: the wall clock
	// Chains are the configured chains per environment; a missing environment answers
	// CHAIN_UNAVAILABLE (docs/decisions/tenancy.md).
	Chains map[core.Environment]ports.Chain
	// Screening screens the destination, asked while a proposal prepares and answered at the
	// first gate. nil: none is configured, and every proposal fails closed.
	Screening ports.Screening
	// PolicyGate applies the spend policy before a proposal is recorded.
	PolicyGate PolicyGate
	// AgentGate applies agent limits before a proposal is recorded.
	AgentGate AgentGate
	// ApprovalGate applies contacts and two-factor approval last.
	ApprovalGate ApprovalGate
	// RelayerBudget bounds relayer-paid executions per tenant, environment and day.
	RelayerBudget kernel.RelayerBudget
	// Finalized carries, in the same unit of work, every save of a payment that is final
	// (COMPLETED, FAILED, CANCELLED) to the capabilities that react (a treasury sweep announces
	// its outcome). nil: nobody listens.
	Finalized *kernel.Subscribers[safepay.Finalized]
	// Custody signs, per environment, for custodial wallets (docs/decisions/wallets.md): a payment proposed from one
	// is signed by its custody key in a job after the proposal commits. nil: no custodial
	// wallets in that environment.
	Custody map[core.Environment]ports.CustodySigner
	// Mirror catches a wallet's ledger mirror up when a payment's hold finds it short of USDC
	// the chain already holds. nil: the execution job waits for the periodic indexer.
	Mirror MirrorCatchUp
}

// Service runs the Safe payment use cases and the execution job.
type Service struct {
	finalized     *kernel.Subscribers[safepay.Finalized]
	store         kernel.Units[txView]
	jobs          ports.Jobs
	clock         ports.Clock
	chains        kernel.Chains
	screening     ports.Screening
	policyGate    PolicyGate
	agentGate     AgentGate
	approvalGate  ApprovalGate
	guard         *kernel.SpendGuard
	relayerBudget kernel.RelayerBudget
	custody       map[core.Environment]ports.CustodySigner
	holds         sendHolds
}

// New checks the wiring and fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("safepay", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Jobs", Value: d.Jobs},
		kernel.Port{Name: "PolicyGate", Value: d.PolicyGate}, kernel.Port{Name: "AgentGate", Value: d.AgentGate},
		kernel.Port{Name: "ApprovalGate", Value: d.ApprovalGate}); err != nil {
		return nil, err
	}
	store, clock := kernel.NewUnits(d.Store, narrow), kernel.ClockOrSystem(d.Clock)
	return &Service{store: store, jobs: d.Jobs, clock: clock, chains: d.Chains, screening: d.Screening, policyGate: d.PolicyGate, agentGate: d.AgentGate, approvalGate: d.ApprovalGate, guard: kernel.NewSpendGuard(clock.Now), relayerBudget: d.RelayerBudget, finalized: d.Finalized, custody: d.Custody,
		holds: sendHolds{store: store, mirror: d.Mirror, now: clock.Now}}, nil
}
