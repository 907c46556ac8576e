package policies

import (
	"context"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/safepay"
)

// GateSafePayment applies the spend policies of the payment's source wallet, of its agent (the
// agent whose key proposes it, else the agent whose Safe the wallet is) and of its treasury
// account (a sweep out of a bucket), per
// POLICY_ENFORCEMENT (docs/api.md Policies): per transaction against a zero-spend window, with the
// destination address as counterparty and no MCC. Each attached policy is evaluated and its
// decision logged; the most restrictive wins (any deny declines).
//
//   - off: nothing is evaluated or recorded.
//   - log: the decision is recorded; a would-be decline is logged and the payment proceeds.
//   - enforce: a deny returns the POLICY_DENIED error for the caller to record the payment
//     FAILED and answer 403.
//
// The evaluation and its decision log run in a savepoint of the caller's unit of work, so a
// failing policy store rolls back only itself: log mode then fails open (logged), enforce
// mode fails closed with POLICY_UNAVAILABLE (the returned err, which aborts the propose).
func (s *Service) GateSafePayment(ctx context.Context, p auth.Principal, pay safepay.Payment) (denied *core.Error, err error) {
	mode := s.mode
	if mode == policy.ModeOff {
		return nil, nil
	}
	var d *policy.Decision
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		d, err = paymentDecision(ctx, tx, p, pay, mode, s.clock.Now().UTC())
		return err
	})
	if err != nil {
		s.log.Error("policy subsystem error on payment propose", "mode", string(mode), "tenantId", p.TenantID,
			"walletId", pay.SourceWalletID, "paymentId", pay.ID, "failOpen", mode == policy.ModeLog, "error", err.Error())
		if mode == policy.ModeEnforce {
			return nil, core.E(policy.CodeUnavailable,
				"the spend policy of wallet %s could not be evaluated, so the payment was not proposed; retry shortly", pay.SourceWalletID).
				WithDetails(map[string]any{"walletId": pay.SourceWalletID}).Transient(core.RetryDatabase)
		}
		return nil, nil
	}
	if d == nil || d.Verdict.Allow {
		return nil, nil
	}
	if !d.Blocked {
		s.log.Warn("policy would decline payment; proceeding (POLICY_ENFORCEMENT=log)", "tenantId", p.TenantID,
			"walletId", pay.SourceWalletID, "paymentId", pay.ID, "policyId", d.PolicyID, "sha256", d.SHA256,
			"reason", d.Verdict.Reason, "decisionLogId", d.ID)
		return nil, nil
	}
	return core.E(policy.CodeDenied, "policy %s (version %d) declined the payment: %s", d.PolicyID, d.PolicyVersion, d.Verdict.Reason).
		WithDetails(map[string]any{"paymentId": pay.ID, "policyId": d.PolicyID, "policyVersion": d.PolicyVersion,
			"sha256": d.SHA256, "reason": d.Verdict.Reason, "decisionLogId": d.ID}), nil
}

// paymentDecision evaluates and logs the decision of each policy attached to the payment's
// wallet and agent, and returns the one that rules: the first deny, else the first allow; nil
// when none is attached (nothing to evaluate, nothing to pin a decision to).
func paymentDecision(ctx context.Context, tx txView, p auth.Principal, pay safepay.Payment, mode policy.Mode, now time.Time) (*policy.Decision, error) {
	subjects := []subject{{policy.SubjectWallet, pay.SourceWalletID}}
	agentID, err := paymentAgent(ctx, tx, p, pay)
	if err != nil {
		return nil, err
	}
	if agentID != "" {
		subjects = append(subjects, subject{policy.SubjectAgent, agentID})
	}
	// A payment out of a treasury bucket (a sweep) answers to its account's policy too.
	accountID, isBucket, err := tx.Treasury().FindAccountIDByWallet(ctx, p.TenantID, p.Environment, pay.SourceWalletID)
	if err != nil {
		return nil, err
	}
	if isBucket {
		subjects = append(subjects, subject{policy.SubjectTreasuryAccount, accountID})
	}
	txn := policy.Transaction{AmountBaseUnits: pay.AmountBaseUnits, Counterparty: strings.ToLower(pay.DestinationAddress)}
	var decisions []*policy.Decision
	for _, sub := range subjects {
		pol, v, found, err := attachedPolicy(ctx, tx, p.TenantID, p.Environment, sub)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		d := newDecision(p, pol, v, txn, now)
		d.SubjectType, d.SubjectID = sub.kind, sub.id
		d.Source, d.ReferenceID, d.Mode = policy.SourcePayment, pay.ID, mode
		d.Blocked = mode == policy.ModeEnforce && !d.Verdict.Allow
		if err := tx.Policies().CreateDecision(ctx, d); err != nil {
			return nil, err
		}
		decisions = append(decisions, &d)
	}
	return ruling(decisions), nil
}

// paymentAgent is the agent a payment is spent by: the proposing agent key's, else the agent
// whose Safe the source wallet is ("" when neither).
func paymentAgent(ctx context.Context, tx txView, p auth.Principal, pay safepay.Payment) (string, error) {
	if p.AgentID != "" {
		return p.AgentID, nil
	}
	a, found, err := tx.Agents().FindAgentByWallet(ctx, p.TenantID, p.Environment, pay.SourceWalletID)
	if err != nil || !found {
		return "", err
	}
	return a.ID, nil
}

// subject is a policy subject a gate looks up.
type subject struct {
	kind policy.SubjectType
	id   string
}

// attachedPolicy is the active version of the policy attached to sub, if any.
func attachedPolicy(ctx context.Context, tx txView, tenantID string, env core.Environment, sub subject) (policy.Policy, policy.Version, bool, error) {
	att, found, err := tx.Policies().FindSubjectAttachment(ctx, tenantID, env, sub.kind, sub.id)
	if err != nil || !found {
		return policy.Policy{}, policy.Version{}, false, err
	}
	pol, err := tx.Policies().FindPolicy(ctx, tenantID, env, att.PolicyID)
	if err != nil {
		return policy.Policy{}, policy.Version{}, false, err
	}
	v, err := tx.Policies().FindVersion(ctx, pol.TenantID, pol.ID, pol.ActiveVersionID)
	return pol, v, err == nil, err
}

// ruling is the decision that rules among those of every applicable policy: the most
// restrictive, so the first that denies, else the first (nil when there is none).
func ruling(decisions []*policy.Decision) *policy.Decision {
	for _, d := range decisions {
		if !d.Verdict.Allow {
			return d
		}
	}
	if len(decisions) == 0 {
		return nil
	}
	return decisions[0]
}
