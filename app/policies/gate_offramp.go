package policies

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
)

// SenderSpendHolds applies the spend policy attached to the sender's service balance
// (subject service_balance, id the sender's tenant id) to an off-ramp payment, per
// POLICY_ENFORCEMENT, and returns the hold reasons the composer adds:
//
//   - off: nothing is evaluated or recorded.
//   - log: the decision is recorded; a would-be decline is logged and the payment proceeds.
//   - enforce: a deny is POLICY_DENIED (REJECT, terminal for the attempt).
//
// Interval caps are cumulative: the sender's other off-ramp payments created in the calendar
// windows of this payment's creation (UTC day, ISO week, calendar month) that hold or have
// moved money, and its checkout refunds in those windows, count as spent (docs/policies.md, "Off-ramp payments"). No MCC or counterparty
// is supplied, so their rules skip.
//
// The evaluation and its decision log run in a savepoint of the composer's unit of work, so a
// failing policy store rolls back only itself: log mode then fails open (logged), enforce mode
// fails closed with the recoverable hold POLICY_SUBSYSTEM_ERROR.
func (s *Service) SenderSpendHolds(ctx context.Context, p offramp.Payment) []offramp.HoldReason {
	mode := s.mode
	if mode == policy.ModeOff {
		return nil
	}
	var d *policy.Decision
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		d, err = offrampDecision(ctx, tx, p, mode, s.clock.Now().UTC())
		return err
	})
	if err != nil {
		s.log.Error("policy subsystem error on off-ramp payment", "mode", string(mode), "tenantId", p.SenderTenantID,
			"paymentId", p.ID, "failOpen", mode == policy.ModeLog, "error", err.Error())
		if mode == policy.ModeEnforce {
			return []offramp.HoldReason{offramp.HoldPolicySubsystemError}
		}
		return nil
	}
	if d == nil || d.Verdict.Allow {
		return nil
	}
	if !d.Blocked {
		s.log.Warn("policy would decline off-ramp payment; proceeding (POLICY_ENFORCEMENT=log)", "tenantId", p.SenderTenantID,
			"paymentId", p.ID, "policyId", d.PolicyID, "sha256", d.SHA256, "reason", d.Verdict.Reason, "decisionLogId", d.ID)
		return nil
	}
	return []offramp.HoldReason{offramp.RejectPolicyDenied}
}

// offrampDecision evaluates and logs the decision of the policy attached to the sender's
// service balance, or returns nil when none is attached (nothing to evaluate, nothing to pin a
// decision to).
func offrampDecision(ctx context.Context, tx ports.Tx, p offramp.Payment, mode policy.Mode, now time.Time) (*policy.Decision, error) {
	pol, v, found, err := lockedBalancePolicy(ctx, tx, p.SenderTenantID, p.Environment)
	if err != nil || !found {
		return nil, err
	}
	spent, err := balanceSpent(ctx, tx, p.Environment, p.SenderTenantID, p.ID, policy.WindowsAt(p.CreatedAt))
	if err != nil {
		return nil, err
	}
	txn := policy.Transaction{AmountBaseUnits: p.SourceAmountBaseUnits}
	d := policy.Decision{
		ID: core.NewID(core.PrefixDecision), TenantID: p.SenderTenantID, Environment: p.Environment,
		PolicyID: pol.ID, VersionID: v.ID, PolicyVersion: v.Version, SHA256: v.SHA256,
		SubjectType: policy.SubjectServiceBalance, SubjectID: p.SenderTenantID,
		Source: policy.SourceOfframp, ReferenceID: p.ID, Mode: mode, Transaction: txn,
		Verdict: policy.EvaluateCumulative(&v.IR, policy.CardLimits{}, txn, spent), CreatedAt: now,
	}
	d.Blocked = mode == policy.ModeEnforce && !d.Verdict.Allow
	return &d, tx.Policies().CreateDecision(ctx, d)
}

// lockedBalancePolicy is the policy attached to the tenant's service balance with its attachment
// row locked until the caller's unit of work ends, so the balance's spend decisions are taken
// one at a time and a cumulative cap counts every payment decided before: the spend guard
// decides an off-ramp payment before it reserves (the reservation's lock on the balance came
// too late to serialise them), and a checkout refund takes the same lock.
func lockedBalancePolicy(ctx context.Context, tx ports.Tx, tenantID string, env core.Environment) (policy.Policy, policy.Version, bool, error) {
	att, found, err := tx.Policies().FindSubjectAttachment(ctx, tenantID, env, policy.SubjectServiceBalance, tenantID)
	if err != nil || !found {
		return policy.Policy{}, policy.Version{}, false, err
	}
	if att, err = tx.Policies().LockAttachment(ctx, tenantID, env, att.ID); err != nil || att.DetachedAt != nil {
		return policy.Policy{}, policy.Version{}, false, err // detached while we waited: no policy
	}
	pol, err := tx.Policies().FindPolicy(ctx, tenantID, env, att.PolicyID)
	if err != nil {
		return policy.Policy{}, policy.Version{}, false, err
	}
	v, err := tx.Policies().FindVersion(ctx, pol.TenantID, pol.ID, pol.ActiveVersionID)
	return pol, v, err == nil, err
}
