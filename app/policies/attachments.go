package policies

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
)

// AttachInput names a subject.
type AttachInput struct {
	SubjectType string
	SubjectID   string
}

// AttachPolicy attaches an active policy to a subject of the caller. A wallet must exist in the
// caller's tenant and environment, as must a card; a service_balance subject is the caller's own
// tenant id; an agent must exist in the caller's tenant and environment (the agents capability
// answers); a treasury account must exist likewise (its policy gates the sweeps out of its
// buckets). A subject with an active policy answers
// POLICY_SUBJECT_ATTACHED (409): detach first.
func (s *Service) AttachPolicy(ctx context.Context, p auth.Principal, id string, in AttachInput) (policy.Attachment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesWrite); err != nil {
		return policy.Attachment{}, err
	}
	subjectType, subjectID, err := parseSubject(in.SubjectType, in.SubjectID)
	if err != nil {
		return policy.Attachment{}, err
	}
	var att policy.Attachment
	err = s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		locked, err := tx.Policies().LockPolicy(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		if locked.Status != policy.StatusActive {
			return core.E(core.CodeInvalidState, "policy %s is %s and cannot be attached", locked.ID, locked.Status).
				WithDetails(map[string]any{"status": string(locked.Status)})
		}
		if err := s.requireSubject(ctx, tx, p, subjectType, subjectID); err != nil {
			return err
		}
		existing, found, err := tx.Policies().FindSubjectAttachment(ctx, p.TenantID, p.Environment, subjectType, subjectID)
		if err != nil {
			return err
		}
		if found {
			return core.E(policy.CodeSubjectAttached, "%s %s already has policy %s attached; detach attachment %s first",
				subjectType, subjectID, existing.PolicyID, existing.ID).
				WithDetails(map[string]any{"attachmentId": existing.ID, "policyId": existing.PolicyID})
		}
		att = policy.Attachment{ID: core.NewID(core.PrefixAttachmnt), TenantID: p.TenantID, Environment: p.Environment,
			PolicyID: locked.ID, SubjectType: subjectType, SubjectID: subjectID, AttachedAt: s.clock.Now().UTC()}
		return tx.Policies().CreateAttachment(ctx, att)
	})
	return att, err
}

// parseSubject validates a (subjectType, subjectId) pair.
func parseSubject(rawType, rawID string) (policy.SubjectType, string, error) {
	errs := core.FieldErrors{}
	t, err := policy.ParseSubjectType("subjectType", strings.TrimSpace(rawType))
	errs.Merge(err)
	id := strings.TrimSpace(rawID)
	if id == "" {
		errs.Add("subjectId", "is required")
	}
	return t, id, errs.Err()
}

// subjectFeatures maps subject types whose capability this build does not serve yet.
var subjectFeatures = map[policy.SubjectType]string{
	policy.SubjectAgent: "agents",
}

// requireSubject checks that the subject exists in the caller's tenant and environment. The
// caller's service balance (docs/decisions/ledger.md) is named by its own tenant id; any other id is not found, as
// another tenant's wallet is (docs/decisions/api.md), so the answer reveals nothing about other tenants.
func (s *Service) requireSubject(ctx context.Context, tx ports.Tx, p auth.Principal, t policy.SubjectType, id string) error {
	if t == policy.SubjectAgent && s.agents != nil {
		return s.agents.RequireAgent(ctx, p.TenantID, p.Environment, id)
	}
	if feature, unbuilt := subjectFeatures[t]; unbuilt {
		return core.E(core.CodeFeatureNotAvailable,
			"policies cannot be attached to a %s yet: the %s capability is not available in this build", t, feature).
			WithDetails(map[string]any{"feature": feature, "field": "subjectType"})
	}
	if t == policy.SubjectCard {
		_, err := tx.Cards().FindCard(ctx, p.TenantID, p.Environment, id)
		return err
	}
	if t == policy.SubjectTreasuryAccount {
		_, err := tx.Treasury().FindAccount(ctx, p.TenantID, p.Environment, id)
		return err
	}
	if t == policy.SubjectServiceBalance {
		if id != p.TenantID {
			return core.E(core.CodeTenantNotFound, "tenant not found: the subjectId of a service_balance is your own tenant id").
				WithDetails(map[string]any{"field": "subjectId"})
		}
		return nil
	}
	_, err := tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, id)
	return err
}

// ListPolicyAttachments lists a policy's active attachments.
func (s *Service) ListPolicyAttachments(ctx context.Context, p auth.Principal, id string) ([]policy.Attachment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesRead); err != nil {
		return nil, err
	}
	var out []policy.Attachment
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		pol, err := tx.Policies().FindPolicy(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		out, err = tx.Policies().ListAttachments(ctx, pol.TenantID, pol.ID, policyAttachmentsCap)
		return err
	})
	return out, err
}

// DetachPolicy ends an attachment. Detaching a detached attachment returns it unchanged.
func (s *Service) DetachPolicy(ctx context.Context, p auth.Principal, attachmentID string) (policy.Attachment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesWrite); err != nil {
		return policy.Attachment{}, err
	}
	var att policy.Attachment
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		att, err = tx.Policies().LockAttachment(ctx, p.TenantID, p.Environment, strings.TrimSpace(attachmentID))
		if err != nil || att.DetachedAt != nil {
			return err
		}
		now := s.clock.Now().UTC()
		att.DetachedAt = &now
		return tx.Policies().Detach(ctx, att.TenantID, att.ID, now)
	})
	return att, err
}
