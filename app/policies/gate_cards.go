package policies

import (
	"context"

	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/policy"
)

// GateCardAuthorization applies the spend policies to a card authorization the card's own rules
// approved, per POLICY_ENFORCEMENT. Every policy attached to the card, to its wallet (a Safe
// card) and to its agent (an agent's card) is evaluated, each decision logged, and the most
// restrictive wins: any deny declines. Each evaluation is cumulative (policy.EvaluateCumulative): the card's spend in each window plus
// the amount against the caps, the most restrictive of policy and card limits winning.
//
//   - off: nothing is evaluated or recorded.
//   - log: the decision is recorded; a would-be decline approves.
//   - enforce: a deny declines with POLICY_DENIED; a policy subsystem error declines with
//     POLICY_UNAVAILABLE (fails closed). In log mode an error approves (fails open).
//
// It runs in a savepoint of the authorization's unit of work, so a failing policy store rolls
// back only itself.
func (s *Service) GateCardAuthorization(ctx context.Context, c card.Card, a card.Authorization, spent card.Spend) (card.PolicyOutcome, error) {
	mode := s.mode
	if mode == policy.ModeOff {
		return card.PolicyOutcome{}, nil
	}
	var d *policy.Decision
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		d, err = cardDecision(ctx, tx, c, a, spent, mode)
		return err
	})
	if err != nil {
		s.log.Error("policy subsystem error on card authorization", "mode", string(mode), "tenantId", c.TenantID,
			"cardId", c.ID, "authorizationId", a.ID, "failOpen", mode == policy.ModeLog, "error", err.Error())
		if mode == policy.ModeEnforce {
			return card.PolicyOutcome{Decline: card.ReasonPolicyUnavailable}, nil
		}
		return card.PolicyOutcome{}, nil
	}
	if d == nil {
		return card.PolicyOutcome{}, nil
	}
	out := card.PolicyOutcome{PolicyID: d.PolicyID, DecisionID: d.ID}
	if d.Blocked {
		out.Decline = card.ReasonPolicyDenied
	} else if !d.Verdict.Allow {
		s.log.Warn("policy would decline card authorization; approving (POLICY_ENFORCEMENT=log)", "tenantId", c.TenantID,
			"cardId", c.ID, "authorizationId", a.ID, "policyId", d.PolicyID, "reason", d.Verdict.Reason, "decisionLogId", d.ID)
	}
	return out, nil
}

// cardSubjects are the subjects whose policies govern a card: itself, its wallet, its agent.
func cardSubjects(c card.Card) []subject {
	out := []subject{{policy.SubjectCard, c.ID}}
	if c.WalletID != "" {
		out = append(out, subject{policy.SubjectWallet, c.WalletID})
	}
	if c.AgentID != "" {
		out = append(out, subject{policy.SubjectAgent, c.AgentID})
	}
	return out
}

func cardDecision(ctx context.Context, tx txView, c card.Card, a card.Authorization, spent card.Spend, mode policy.Mode) (*policy.Decision, error) {
	txn := policy.Transaction{AmountBaseUnits: a.Amount, MCC: card.Normalise4(a.MCC), Counterparty: a.Counterparty}
	limits := policy.CardLimits{Limits: policy.Limits{PerTransaction: c.Limits.PerTransaction, Daily: c.Limits.Daily,
		Weekly: c.Limits.Weekly, Monthly: c.Limits.Monthly}, MCC: policy.Lists{Blocked: c.Limits.BlockedMCC, Allowed: c.Limits.AllowedMCC}}
	p := auth.Principal{TenantID: c.TenantID, Environment: c.Environment}
	var decisions []*policy.Decision
	for _, sub := range cardSubjects(c) {
		pol, v, found, err := attachedPolicy(ctx, tx, c.TenantID, c.Environment, sub)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		d := newDecision(p, pol, v, txn, a.CreatedAt)
		d.Verdict = policy.EvaluateCumulative(&v.IR, limits, txn, policy.Spend{Daily: spent.Daily, Weekly: spent.Weekly, Monthly: spent.Monthly})
		d.SubjectType, d.SubjectID = sub.kind, sub.id
		d.Source, d.ReferenceID, d.Mode = policy.SourceCard, a.ID, mode
		d.Blocked = mode == policy.ModeEnforce && !d.Verdict.Allow
		if err := tx.Policies().CreateDecision(ctx, d); err != nil {
			return nil, err
		}
		decisions = append(decisions, &d)
	}
	return ruling(decisions), nil
}
