package kernel

import (
	"context"
	"errors"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/spend"
	"github.com/corridorhq/corridor/ports"
)

// SpendGuard is the one spend guard: money leaves a tenant's control only through a debit of a
// tenant-owned ledger account or a custody signature, and both pass here (the rule is
// core/spend). Use cases call it at acceptance for clear errors; GuardLedger puts every debit
// posted on a caller's behalf to it as well, so a new route cannot forget it. It decides inside
// the caller's unit of work and holds no state: the windows and reservations live in the
// agents' store, locked per agent.
type SpendGuard struct {
	now func() time.Time
}

// NewSpendGuard returns a guard reading time from now (nil: the wall clock).
func NewSpendGuard(now func() time.Time) *SpendGuard {
	if now == nil {
		now = time.Now
	}
	return &SpendGuard{now: now}
}

// SpendDecider is the spend guard as a capability holds it: Decide is the one place a spend's
// confinement, policy, caps and approval are decided. *SpendGuard is the implementation; the
// interface lets a capability's tests put a double around it that proves its policy runs inside.
type SpendDecider interface {
	Decide(ctx context.Context, tx ports.Tx, req spend.Request, checks SpendChecks) (step string, denied *core.Error, err error)
}

var _ SpendDecider = (*SpendGuard)(nil)

// SpendChecks are a spend's decisions besides agent confinement, bound by the capability to what
// only it knows of the spend (the policy's subject and how a deny is recorded, the challenge the
// client sent). A nil step is one the source has none of; a nil Caps is the guard's own
// reservation against the source agent's windows.
//
// A policy that holds rather than denies (an off-ramp's POLICY_SUBSYSTEM_ERROR) answers no
// refusal: the spend passes, and the capability keeps what it may do with the money to a
// reservation its state records (a held payment) until a later Decide clears it.
type SpendChecks struct {
	Policy   func(ctx context.Context) (denied *core.Error, err error)
	Caps     func(ctx context.Context) error
	Approval func(ctx context.Context) (refused *core.Error, err error)
}

// The steps of Decide, named in a refusal so the caller can record it as its route documents.
const (
	StepConfinement = "confinement"
	StepPolicy      = "policy"
	StepCaps        = "caps"
	StepApproval    = "approval"
)

// Decide is the one spend guard: every spend a caller causes is decided here, in one order,
// whichever route asked: agent confinement (an agent spends only its own wallet; a suspended
// agent nothing), the spend policies, the agent caps (reserved), two-factor approval. The
// first refusal answers with its step: a policy or approval refusal as denied (the route may
// commit what the step wrote: a decision log, a challenge), a confinement or caps refusal as
// err (nothing is recorded), like a store failure, for which the caller fails closed. Only a
// spend that passed every step is recorded as passed, which is what lets the unit of work
// debit its source (GuardLedger).
func (g *SpendGuard) Decide(ctx context.Context, tx ports.Tx, req spend.Request, checks SpendChecks) (step string, denied *core.Error, err error) {
	if err := confineAgent(ctx, tx, req); err != nil {
		return StepConfinement, nil, err
	}
	if checks.Policy != nil {
		if denied, err := checks.Policy(ctx); err != nil || denied != nil {
			return StepPolicy, denied, err
		}
	}
	caps := checks.Caps
	if caps == nil {
		caps = func(ctx context.Context) error { return g.reserveAgentCaps(ctx, tx, req) }
	}
	if err := caps(ctx); err != nil {
		return StepCaps, nil, err
	}
	if checks.Approval != nil {
		if denied, err := checks.Approval(ctx); err != nil || denied != nil {
			return StepApproval, denied, err
		}
	}
	markPassed(ctx, req.Principal.TenantID, req.Source)
	return "", nil, nil
}

// Authorize decides req in tx: agent confinement first (an agent key spends only its own
// wallet; a suspended agent spends nothing), then the caps of the agent whose wallet is the
// source, reserved at once under req.Reference so parallel spends of one agent are decided one
// at a time and never together exceed a cap. A refusal is a *core.Error (INSUFFICIENT_SCOPE,
// AGENT_SUSPENDED, AGENT_LIMIT); any other error is the store's, for the caller to fail closed.
// Deciding one reference twice reserves once. A pass lets the unit of work debit the source
// (GuardLedger refuses a debit no pass covers).
func (g *SpendGuard) Authorize(ctx context.Context, tx ports.Tx, req spend.Request) error {
	if err := confineAgent(ctx, tx, req); err != nil {
		return err
	}
	if err := g.reserveAgentCaps(ctx, tx, req); err != nil {
		return err
	}
	markPassed(ctx, req.Principal.TenantID, req.Source)
	return nil
}

// ConfineSpend is the guard for a spend without agent caps to reserve (a source no agent
// owns): agent confinement alone, with the acting agent read from the store (its wallet, its
// status). A pass lets the unit of work debit the source.
func ConfineSpend(ctx context.Context, tx ports.Tx, req spend.Request) error {
	if err := confineAgent(ctx, tx, req); err != nil {
		return err
	}
	markPassed(ctx, req.Principal.TenantID, req.Source)
	return nil
}

// CheckConfinement is a route's early refusal of an agent spending what is not its own, before
// the route knows enough to put the spend to the guard; it records no pass.
func CheckConfinement(ctx context.Context, tx ports.Tx, req spend.Request) error {
	return confineAgent(ctx, tx, req)
}

// confineAgent decides agent confinement and records no pass: the ledger's own check uses it.
func confineAgent(ctx context.Context, tx ports.Tx, req spend.Request) error {
	p := req.Principal
	if p.AgentID == "" {
		return nil
	}
	own, err := tx.Agents().FindAgent(ctx, p.TenantID, p.Environment, p.AgentID)
	if err != nil {
		return err
	}
	if own.Status == agent.StatusSuspended {
		return core.E(agent.CodeSuspended, "agent %s is suspended; reactivate it to let it act again", own.ID).
			WithDetails(map[string]any{"agentId": own.ID})
	}
	return spend.Confine(p, own.WalletID, req.Source)
}

// reserveAgentCaps reserves req's amount in the windows of the agent whose Safe is the source
// (a wallet no agent owns has no caps). The reservation counts while its payment is live and
// stops counting when the payment fails or is cancelled (the store's SpentInWindows reads it
// so), which is the release.
func (g *SpendGuard) reserveAgentCaps(ctx context.Context, tx ports.Tx, req spend.Request) error {
	if req.Source.Kind != spend.SourceWallet || req.Source.WalletID == "" || req.AmountBaseUnits <= 0 {
		return nil
	}
	if req.Reference == "" {
		return core.E(core.CodeInternal, "kernel: a wallet spend needs a reference to reserve under")
	}
	p := req.Principal
	owner, found, err := tx.Agents().FindAgentByWallet(ctx, p.TenantID, p.Environment, req.Source.WalletID)
	if err != nil || !found {
		return err
	}
	a, err := tx.Agents().LockAgent(ctx, owner.TenantID, owner.Environment, owner.ID)
	if err != nil {
		return err
	}
	if _, reserved, err := tx.Agents().LockCardSpend(ctx, a.TenantID, req.Reference); err != nil || reserved {
		return err
	}
	now := g.now().UTC()
	windows := agent.WindowsAt(now)
	spent, err := tx.Agents().SpentInWindows(ctx, a, windows)
	if err != nil {
		return err
	}
	if err := agent.CheckSpend(a.Limits, spent, req.AmountBaseUnits); err != nil {
		return err
	}
	return tx.Agents().CreateCardSpend(ctx, agent.CardSpend{AuthorizationID: req.Reference, AgentID: a.ID,
		TenantID: a.TenantID, Environment: a.Environment, AmountBaseUnits: req.AmountBaseUnits, Windows: windows, ConsumedAt: now})
}

// IsSpendRefusal tells a guard refusal (answered to the caller as is) from a store failure.
func IsSpendRefusal(err error) bool {
	var e *core.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case core.CodeInsufficientScope, agent.CodeSuspended, agent.CodeLimit:
		return true
	}
	return false
}
