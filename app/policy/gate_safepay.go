package policy

import (
	"context"
	"strings"
	"time"

	"corridor/core"
	"corridor/core/auth"
	"corridor/core/policy"
	"corridor/core/safepay"
	"corridor/ports"
)

// GateSafePayment applies the spend policy attached to the payment's source wallet, per
// POLICY_ENFORCEMENT (SPEC.md Policies): per transaction against a zero-spend window, with the
// destination address as counterparty and no MCC.
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
	err = s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
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
				WithDetails(map[string]any{"walletId": pay.SourceWalletID})
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

// paymentDecision evaluates and logs the decision of the wallet's attached policy, or returns
// nil when none is attached (nothing to evaluate, nothing to pin a decision to).
func paymentDecision(ctx context.Context, tx ports.Tx, p auth.Principal, pay safepay.Payment, mode policy.Mode, now time.Time) (*policy.Decision, error) {
	att, found, err := tx.Policies().FindSubjectAttachment(ctx, p.TenantID, p.Environment, policy.SubjectWallet, pay.SourceWalletID)
	if err != nil || !found {
		return nil, err
	}
	pol, err := tx.Policies().FindPolicy(ctx, p.TenantID, p.Environment, att.PolicyID)
	if err != nil {
		return nil, err
	}
	v, err := tx.Policies().FindVersion(ctx, pol.ID, pol.ActiveVersionID)
	if err != nil {
		return nil, err
	}
	d := newDecision(p, pol, v, policy.Transaction{AmountBaseUnits: pay.AmountBaseUnits, Counterparty: strings.ToLower(pay.DestinationAddress)}, now)
	d.SubjectType, d.SubjectID = policy.SubjectWallet, pay.SourceWalletID
	d.Source, d.ReferenceID, d.Mode = policy.SourcePayment, pay.ID, mode
	d.Blocked = mode == policy.ModeEnforce && !d.Verdict.Allow
	return &d, tx.Policies().CreateDecision(ctx, d)
}
