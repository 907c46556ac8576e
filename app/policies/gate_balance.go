package policies

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/policy"
)

// GateBalanceSpend applies the spend policy attached to the tenant's service balance (subject
// service_balance) to a spend of it that is not an off-ramp payment (a checkout refund), with the
// receiving address as counterparty, per POLICY_ENFORCEMENT. Interval caps are cumulative, as
// for every debit of the balance: what off-ramp payments and refunds took in each window
// (balanceSpent) plus this amount. off skips;
// log records the decision and proceeds; enforce answers a deny as POLICY_DENIED for the
// caller to refuse with nothing changed. It runs in a savepoint of the caller's unit of work:
// a failing policy store fails open in log mode and closed (POLICY_UNAVAILABLE) in enforce.
func (s *Service) GateBalanceSpend(ctx context.Context, p auth.Principal, referenceID string, amount int64, counterparty string) (*core.Error, error) {
	mode := s.mode
	if mode == policy.ModeOff {
		return nil, nil
	}
	var d *policy.Decision
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		pol, v, found, err := lockedBalancePolicy(ctx, tx, p.TenantID, p.Environment)
		if err != nil || !found {
			return err
		}
		now := s.clock.Now().UTC()
		spent, err := balanceSpent(ctx, tx, p.Environment, p.TenantID, "", policy.WindowsAt(now))
		if err != nil {
			return err
		}
		txn := policy.Transaction{AmountBaseUnits: amount, Counterparty: strings.ToLower(counterparty)}
		decision := newDecision(p, pol, v, txn, now)
		decision.Verdict = policy.EvaluateCumulative(&v.IR, policy.CardLimits{}, txn, spent)
		decision.SubjectType, decision.SubjectID = policy.SubjectServiceBalance, p.TenantID
		decision.Source, decision.ReferenceID, decision.Mode = policy.SourcePayment, referenceID, mode
		decision.Blocked = mode == policy.ModeEnforce && !decision.Verdict.Allow
		d = &decision
		return tx.Policies().CreateDecision(ctx, decision)
	})
	if err != nil {
		s.log.Error("policy subsystem error on a service balance spend", "mode", string(mode), "tenantId", p.TenantID,
			"referenceId", referenceID, "failOpen", mode == policy.ModeLog, "error", err.Error())
		if mode == policy.ModeEnforce {
			return nil, core.E(policy.CodeUnavailable, "the spend policy of the service balance could not be evaluated; retry shortly").Transient(core.RetryDatabase)
		}
		return nil, nil
	}
	if d == nil || !d.Blocked {
		return nil, nil
	}
	return core.E(policy.CodeDenied, "policy %s (version %d) declined the spend: %s", d.PolicyID, d.PolicyVersion, d.Verdict.Reason).
		WithDetails(map[string]any{"policyId": d.PolicyID, "policyVersion": d.PolicyVersion, "sha256": d.SHA256,
			"reason": d.Verdict.Reason, "decisionLogId": d.ID}), nil
}

// balanceSpent is what left the tenant's service balance in each window: its off-ramp payments
// that hold or moved money (but excludeOfframpID, the one being decided) and its checkout
// refunds. Every spend policy of the balance counts this one sum, whichever route spends.
func balanceSpent(ctx context.Context, tx txView, env core.Environment, tenantID, excludeOfframpID string, w policy.Windows) (policy.Spend, error) {
	off, err := tx.Offramp().SenderSpend(ctx, env, tenantID, excludeOfframpID, w)
	if err != nil {
		return policy.Spend{}, err
	}
	refunds, err := tx.Checkouts().RefundedInWindows(ctx, env, tenantID, w)
	if err != nil {
		return policy.Spend{}, err
	}
	return policy.Spend{Daily: off.Daily + refunds.Daily, Weekly: off.Weekly + refunds.Weekly, Monthly: off.Monthly + refunds.Monthly}, nil
}
