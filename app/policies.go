package app

import (
	"context"
	"io"
	"log/slog"
	"strings"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/auth"
	"corridor/core/policy"
	"corridor/ports"
)

// Bounds of the policies capability.
const (
	policyNameMaxLength = 200
	// policyAttachmentsCap bounds the attachments listed for one policy.
	policyAttachmentsCap = 1000
)

// policyDeps is the policy configuration of the App.
type policyDeps struct {
	mode policy.Mode
	log  *slog.Logger
}

func newPolicyDeps(d Deps) (policyDeps, error) {
	mode, ok := policy.ParseMode(string(d.PolicyEnforcement))
	if !ok {
		return policyDeps{}, core.E(core.CodeInternal, "app: PolicyEnforcement must be off, log or enforce, got %q", d.PolicyEnforcement)
	}
	log := d.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return policyDeps{mode: mode, log: log}, nil
}

// PolicyEnforcement is the configured rollout mode.
func (a *App) PolicyEnforcement() policy.Mode { return a.policy.mode }

// CreatePolicyInput is the body of POST /v1/policies. Document is the raw JSON document (nil
// when absent), parsed strictly by core/policy so every error names its full field path.
type CreatePolicyInput struct {
	Name     string
	Document []byte
}

// PolicyVersionView is a policy with its active version.
type PolicyVersionView struct {
	Policy  policy.Policy
	Version policy.Version
}

// parseDocument reads a required document field.
func parseDocument(raw []byte) (policy.Document, error) {
	if len(raw) == 0 || strings.TrimSpace(string(raw)) == "null" {
		return policy.Document{}, core.Invalid("document", "is required")
	}
	return policy.ParseDocument("document", raw)
}

// CreatePolicy compiles the document into immutable version 1 and activates it.
func (a *App) CreatePolicy(ctx context.Context, p auth.Principal, in CreatePolicyInput) (policy.Policy, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesWrite); err != nil {
		return policy.Policy{}, err
	}
	errs := core.FieldErrors{}
	name := strings.TrimSpace(in.Name)
	switch {
	case name == "":
		errs.Add("name", "is required")
	case len(name) > policyNameMaxLength:
		errs.Add("name", "must be at most 200 characters")
	}
	doc, err := parseDocument(in.Document)
	mergeFieldErrors(errs, err)
	if err := errs.Err(); err != nil {
		return policy.Policy{}, err
	}
	now := a.clock.Now().UTC()
	pol := policy.Policy{ID: core.NewID(core.PrefixPolicy), TenantID: p.TenantID, Environment: p.Environment,
		Name: name, Status: policy.StatusActive, CreatedAt: now}
	v := policy.NewVersion(core.NewID(core.PrefixVersion), pol.ID, 1, doc, in.Document, now)
	pol, err = pol.Activate(v)
	if err != nil {
		return policy.Policy{}, err
	}
	err = a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		return tx.Policies().CreatePolicy(ctx, pol, v)
	})
	return pol, err
}

// mergeFieldErrors copies the fields of a VALIDATION_FAILED error into errs; other errors are
// recorded against the body.
func mergeFieldErrors(errs core.FieldErrors, err error) {
	if err == nil {
		return
	}
	if e, ok := err.(*core.Error); ok && e.Code == core.CodeValidationFailed {
		if fields, ok := e.Details["fields"].(map[string]any); ok {
			for k, v := range fields {
				reason, _ := v.(string)
				errs.Add(k, reason)
			}
			return
		}
	}
	errs.Add("body", err.Error())
}

// GetPolicy returns one of the caller's policies (archived ones too).
func (a *App) GetPolicy(ctx context.Context, p auth.Principal, id string) (policy.Policy, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesRead); err != nil {
		return policy.Policy{}, err
	}
	var pol policy.Policy
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		pol, err = tx.Policies().FindPolicy(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		return err
	})
	return pol, err
}

// ListPolicies lists the caller's policies of its environment, oldest first.
func (a *App) ListPolicies(ctx context.Context, p auth.Principal, page ports.Page) ([]policy.Policy, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesRead); err != nil {
		return nil, 0, err
	}
	var out []policy.Policy
	var total int
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, total, err = tx.Policies().ListPolicies(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// ArchivePolicy archives a policy and detaches it from every subject in the same unit of
// work. Archiving an archived policy returns it unchanged.
func (a *App) ArchivePolicy(ctx context.Context, p auth.Principal, id string) (policy.Policy, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesWrite); err != nil {
		return policy.Policy{}, err
	}
	var pol policy.Policy
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		locked, err := tx.Policies().LockPolicy(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		now := a.clock.Now().UTC()
		if _, err := tx.Policies().DetachAll(ctx, locked.ID, now); err != nil {
			return err
		}
		pol = locked.Archive(now)
		return tx.Policies().UpdatePolicy(ctx, pol)
	})
	return pol, err
}

// CreatePolicyVersion appends a version compiled from the document and moves the active
// pointer to it. Earlier versions are never changed.
func (a *App) CreatePolicyVersion(ctx context.Context, p auth.Principal, id string, raw []byte) (policy.Version, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesWrite); err != nil {
		return policy.Version{}, err
	}
	doc, err := parseDocument(raw)
	if err != nil {
		return policy.Version{}, err
	}
	var v policy.Version
	err = a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		locked, err := tx.Policies().LockPolicy(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		v = policy.NewVersion(core.NewID(core.PrefixVersion), locked.ID, locked.ActiveVersion+1, doc, raw, a.clock.Now().UTC())
		next, err := locked.Activate(v)
		if err != nil {
			return err
		}
		if err := tx.Policies().CreateVersion(ctx, v); err != nil {
			return err
		}
		return tx.Policies().UpdatePolicy(ctx, next)
	})
	return v, err
}

// ListPolicyVersions lists a policy's versions, oldest first.
func (a *App) ListPolicyVersions(ctx context.Context, p auth.Principal, id string, page ports.Page) ([]policy.Version, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesRead); err != nil {
		return nil, 0, err
	}
	var out []policy.Version
	var total int
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		pol, err := tx.Policies().FindPolicy(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		out, total, err = tx.Policies().ListVersions(ctx, pol.ID, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// AttachInput names a subject.
type AttachInput struct {
	SubjectType string
	SubjectID   string
}

// AttachPolicy attaches an active policy to a subject of the caller. A wallet must exist in the
// caller's tenant and environment; a service_balance subject is the caller's own tenant id;
// cards, agents and treasury accounts are refused with FEATURE_NOT_AVAILABLE until their
// capabilities exist (docs/decisions.md, "Policies"). A subject with an active policy answers
// POLICY_SUBJECT_ATTACHED (409): detach first.
func (a *App) AttachPolicy(ctx context.Context, p auth.Principal, id string, in AttachInput) (policy.Attachment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesWrite); err != nil {
		return policy.Attachment{}, err
	}
	subjectType, subjectID, err := parseSubject(in.SubjectType, in.SubjectID)
	if err != nil {
		return policy.Attachment{}, err
	}
	var att policy.Attachment
	err = a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		locked, err := tx.Policies().LockPolicy(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		if locked.Status != policy.StatusActive {
			return core.E(core.CodeInvalidState, "policy %s is %s and cannot be attached", locked.ID, locked.Status).
				WithDetails(map[string]any{"status": string(locked.Status)})
		}
		if err := requireSubject(ctx, tx, p, subjectType, subjectID); err != nil {
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
			PolicyID: locked.ID, SubjectType: subjectType, SubjectID: subjectID, AttachedAt: a.clock.Now().UTC()}
		return tx.Policies().CreateAttachment(ctx, att)
	})
	return att, err
}

// parseSubject validates a (subjectType, subjectId) pair.
func parseSubject(rawType, rawID string) (policy.SubjectType, string, error) {
	errs := core.FieldErrors{}
	t, err := policy.ParseSubjectType("subjectType", strings.TrimSpace(rawType))
	mergeFieldErrors(errs, err)
	id := strings.TrimSpace(rawID)
	if id == "" {
		errs.Add("subjectId", "is required")
	}
	return t, id, errs.Err()
}

// subjectFeatures maps subject types whose capability this build does not serve yet.
var subjectFeatures = map[policy.SubjectType]string{
	policy.SubjectCard: "cards", policy.SubjectAgent: "agents", policy.SubjectTreasuryAccount: "treasury",
}

// requireSubject checks that the subject exists in the caller's tenant and environment. The
// caller's service balance (D6) is named by its own tenant id; any other id is not found, as
// another tenant's wallet is (D4), so the answer reveals nothing about other tenants.
func requireSubject(ctx context.Context, tx ports.Tx, p auth.Principal, t policy.SubjectType, id string) error {
	if feature, unbuilt := subjectFeatures[t]; unbuilt {
		return core.E(core.CodeFeatureNotAvailable,
			"policies cannot be attached to a %s yet: the %s capability is not available in this build", t, feature).
			WithDetails(map[string]any{"feature": feature, "field": "subjectType"})
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
func (a *App) ListPolicyAttachments(ctx context.Context, p auth.Principal, id string) ([]policy.Attachment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesRead); err != nil {
		return nil, err
	}
	var out []policy.Attachment
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		pol, err := tx.Policies().FindPolicy(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		out, err = tx.Policies().ListAttachments(ctx, pol.ID, policyAttachmentsCap)
		return err
	})
	return out, err
}

// DetachPolicy ends an attachment. Detaching a detached attachment returns it unchanged.
func (a *App) DetachPolicy(ctx context.Context, p auth.Principal, attachmentID string) (policy.Attachment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePoliciesWrite); err != nil {
		return policy.Attachment{}, err
	}
	var att policy.Attachment
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		att, err = tx.Policies().LockAttachment(ctx, p.TenantID, p.Environment, strings.TrimSpace(attachmentID))
		if err != nil || att.DetachedAt != nil {
			return err
		}
		now := a.clock.Now().UTC()
		att.DetachedAt = &now
		return tx.Policies().Detach(ctx, att.ID, now)
	})
	return att, err
}
