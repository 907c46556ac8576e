package policy

import (
	"context"

	"corridor/core/auth"
	"corridor/core/card"
	"corridor/core/policy"
	"corridor/ports"
)

// GateCardAuthorization applies the spend policy to a card authorization the card's own rules
// approved, per POLICY_ENFORCEMENT. The policy that applies is the card's own attachment, else
// its wallet's (a Safe card); a cardholder card without its own attachment has none. The
// evaluation is cumulative (policy.EvaluateCumulative): the card's spend in each window plus
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
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
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

// cardPolicy finds the attachment that governs a card: its own, else its wallet's.
func cardPolicy(ctx context.Context, tx ports.Tx, c card.Card) (policy.Attachment, bool, error) {
	att, found, err := tx.Policies().FindSubjectAttachment(ctx, c.TenantID, c.Environment, policy.SubjectCard, c.ID)
	if err != nil || found || c.WalletID == "" {
		return att, found, err
	}
	return tx.Policies().FindSubjectAttachment(ctx, c.TenantID, c.Environment, policy.SubjectWallet, c.WalletID)
}

func cardDecision(ctx context.Context, tx ports.Tx, c card.Card, a card.Authorization, spent card.Spend, mode policy.Mode) (*policy.Decision, error) {
	att, found, err := cardPolicy(ctx, tx, c)
	if err != nil || !found {
		return nil, err
	}
	pol, err := tx.Policies().FindPolicy(ctx, c.TenantID, c.Environment, att.PolicyID)
	if err != nil {
		return nil, err
	}
	v, err := tx.Policies().FindVersion(ctx, pol.ID, pol.ActiveVersionID)
	if err != nil {
		return nil, err
	}
	txn := policy.Transaction{AmountBaseUnits: a.Amount, MCC: card.Normalise4(a.MCC), Counterparty: a.Counterparty}
	limits := policy.CardLimits{Limits: policy.Limits{PerTransaction: c.Limits.PerTransaction, Daily: c.Limits.Daily,
		Weekly: c.Limits.Weekly, Monthly: c.Limits.Monthly}, MCC: policy.Lists{Blocked: c.Limits.BlockedMCC, Allowed: c.Limits.AllowedMCC}}
	p := auth.Principal{TenantID: c.TenantID, Environment: c.Environment}
	d := newDecision(p, pol, v, txn, a.CreatedAt)
	d.Verdict = policy.EvaluateCumulative(&v.IR, limits, txn, policy.Spend{Daily: spent.Daily, Weekly: spent.Weekly, Monthly: spent.Monthly})
	d.SubjectType, d.SubjectID = att.SubjectType, att.SubjectID
	d.Source, d.ReferenceID, d.Mode = policy.SourceCard, a.ID, mode
	d.Blocked = mode == policy.ModeEnforce && !d.Verdict.Allow
	return &d, tx.Policies().CreateDecision(ctx, d)
}
