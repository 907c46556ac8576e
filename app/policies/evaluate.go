package policies

import (
	"context"
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
)

// EvaluateInput is the body of POST /v1/policies/evaluate: policyId or (subjectType,
// subjectId), amountUsd (required), optional mcc (four digits) and counterparty (address).
type EvaluateInput struct {
	PolicyID     string
	SubjectType  string
	SubjectID    string
	AmountUSD    string
	MCC          *string
	Counterparty *string
}

// evaluateRequest is a validated EvaluateInput.
type evaluateRequest struct {
	policyID    string
	subjectType policy.SubjectType
	subjectID   string
	tx          policy.Transaction
}

func parseEvaluateInput(in EvaluateInput) (evaluateRequest, error) {
	errs := core.FieldErrors{}
	r := evaluateRequest{policyID: strings.TrimSpace(in.PolicyID)}
	bySubject := strings.TrimSpace(in.SubjectType) != "" || strings.TrimSpace(in.SubjectID) != ""
	switch {
	case r.policyID != "" && bySubject:
		errs.Add("policyId", "give policyId or subjectType and subjectId, not both")
	case r.policyID == "" && !bySubject:
		errs.Add("policyId", "is required unless subjectType and subjectId are given")
	case bySubject:
		t, id, err := parseSubject(in.SubjectType, in.SubjectID)
		errs.Merge(err)
		r.subjectType, r.subjectID = t, id
	}
	amount, err := core.ParseUSD("amountUsd", in.AmountUSD)
	errs.Merge(err)
	if err == nil && amount <= 0 {
		errs.Add("amountUsd", "must be positive")
	}
	r.tx.AmountBaseUnits = amount
	if in.MCC != nil {
		if r.tx.MCC = strings.TrimSpace(*in.MCC); !policy.ValidMCC(r.tx.MCC) {
			errs.Add("mcc", "must be a merchant category code of exactly 4 digits")
		}
	}
	if in.Counterparty != nil {
		if r.tx.Counterparty = strings.ToLower(strings.TrimSpace(*in.Counterparty)); !policy.ValidAddress(r.tx.Counterparty) {
			errs.Add("counterparty", "must be an address: 0x followed by 40 hex digits")
		}
	}
	return r, errs.Err()
}

// EvaluatePolicy is the dry run of POST /v1/policies/evaluate: the active version of the
// policy (named, or attached to the subject) evaluates the transaction against a zero-spend
// window, and the decision is logged, pinned to that version's sha256, in the same unit of
// work. The decision is returned with its id.
func (s *Service) EvaluatePolicy(ctx context.Context, p auth.Principal, in EvaluateInput) (policy.Decision, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesEvaluate); err != nil {
		return policy.Decision{}, err
	}
	req, err := parseEvaluateInput(in)
	if err != nil {
		return policy.Decision{}, err
	}
	var d policy.Decision
	err = s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		pol, err := s.resolveEvaluatedPolicy(ctx, tx, p, req)
		if err != nil {
			return err
		}
		v, err := tx.Policies().FindVersion(ctx, pol.TenantID, pol.ID, pol.ActiveVersionID)
		if err != nil {
			return err
		}
		d = newDecision(p, pol, v, req.tx, s.clock.Now().UTC())
		d.SubjectType, d.SubjectID, d.Source = req.subjectType, req.subjectID, policy.SourceEvaluate
		return tx.Policies().CreateDecision(ctx, d)
	})
	return d, err
}

// resolveEvaluatedPolicy finds the named policy, or the policy attached to the subject.
func (s *Service) resolveEvaluatedPolicy(ctx context.Context, tx ports.Tx, p auth.Principal, req evaluateRequest) (policy.Policy, error) {
	id := req.policyID
	if id == "" {
		if err := s.requireSubject(ctx, tx, p, req.subjectType, req.subjectID); err != nil {
			return policy.Policy{}, err
		}
		att, found, err := tx.Policies().FindSubjectAttachment(ctx, p.TenantID, p.Environment, req.subjectType, req.subjectID)
		if err != nil {
			return policy.Policy{}, err
		}
		if !found {
			return policy.Policy{}, core.E(policy.CodePolicyNotFound, "no policy is attached to %s %s", req.subjectType, req.subjectID).
				WithDetails(map[string]any{"subjectType": string(req.subjectType), "subjectId": req.subjectID})
		}
		id = att.PolicyID
	}
	pol, err := tx.Policies().FindPolicy(ctx, p.TenantID, p.Environment, id)
	if err == nil && pol.Status != policy.StatusActive {
		return pol, core.E(core.CodeInvalidState, "policy %s is %s and is no longer evaluated", pol.ID, pol.Status).
			WithDetails(map[string]any{"status": string(pol.Status)})
	}
	return pol, err
}

// newDecision evaluates tx with the version (zero-spend) and builds its decision log.
func newDecision(p auth.Principal, pol policy.Policy, v policy.Version, tx policy.Transaction, now time.Time) policy.Decision {
	return policy.Decision{
		ID: core.NewID(core.PrefixDecision), TenantID: p.TenantID, Environment: p.Environment,
		PolicyID: pol.ID, VersionID: v.ID, PolicyVersion: v.Version, SHA256: v.SHA256,
		Transaction: tx, Verdict: policy.Evaluate(v.IR, tx), CreatedAt: now,
	}
}
