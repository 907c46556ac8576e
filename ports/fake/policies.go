package fake

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
)

// policyTables are spend policies, their versions, attachments and decision logs.
type policyTables struct {
	policies    table[policy.Policy]
	versions    table[policy.Version]
	attachments table[policy.Attachment]
	decisions   table[policy.Decision]
}

func newPolicyTables() policyTables {
	return policyTables{policies: newTable[policy.Policy](), versions: newTable[policy.Version](),
		attachments: newTable[policy.Attachment](), decisions: newTable[policy.Decision]()}
}

func (t policyTables) clone() policyTables {
	return policyTables{policies: t.policies.clone(), versions: t.versions.clone(), attachments: t.attachments.clone(),
		decisions: t.decisions.clone()}
}

// policyRepo stores policies as the Postgres store does: lists by id (decisions newest first,
// versions by number), one active attachment per subject, and versions verified on read.
type policyRepo struct{ s *Store }

var _ ports.PolicyRepo = policyRepo{}

var (
	errPolicyNotFound     = core.NotFound(policy.CodePolicyNotFound, "policy")
	errAttachmentNotFound = core.NotFound(policy.CodeAttachmentNotFound, "attachment")
)

func (r policyRepo) t() *policyTables { return &r.s.state.policies }

func (r policyRepo) CreatePolicy(ctx context.Context, p policy.Policy, v policy.Version) error {
	if err := r.t().policies.insert(p.ID, p); err != nil {
		return err
	}
	return r.CreateVersion(ctx, p.TenantID, v)
}

func (r policyRepo) FindPolicy(_ context.Context, tenantID string, env core.Environment, id string) (policy.Policy, error) {
	p, ok := r.t().policies.rows[id]
	if !ok || p.TenantID != tenantID || p.Environment != env {
		return policy.Policy{}, errPolicyNotFound
	}
	return p, nil
}

// LockPolicy is FindPolicy: units of work already run one at a time.
func (r policyRepo) LockPolicy(ctx context.Context, tenantID string, env core.Environment, id string) (policy.Policy, error) {
	return r.FindPolicy(ctx, tenantID, env, id)
}

func (r policyRepo) ListPolicies(_ context.Context, tenantID string, env core.Environment, p ports.Page) ([]policy.Policy, int, error) {
	out, total := page(r.t().policies.filter(func(x policy.Policy) bool { return x.TenantID == tenantID && x.Environment == env }, false), p)
	return out, total, nil
}

// UpdatePolicy writes status, the active pointer and archivedAt of the tenant's policy.
func (r policyRepo) UpdatePolicy(_ context.Context, p policy.Policy) error {
	old, ok := r.t().policies.rows[p.ID]
	if !ok || old.TenantID != p.TenantID {
		return nil
	}
	old.Status, old.ActiveVersionID, old.ActiveVersion, old.ArchivedAt = p.Status, p.ActiveVersionID, p.ActiveVersion, p.ArchivedAt
	return r.t().policies.update(p.ID, old)
}

// CreateVersion refuses a second version number of one policy as INVALID_STATE, as the unique
// key does.
func (r policyRepo) CreateVersion(_ context.Context, tenantID string, v policy.Version) error {
	if !json.Valid(v.Document) {
		return fmt.Errorf("fake: policy version %s: document is not JSON", v.ID)
	}
	if !r.owns(tenantID, v.PolicyID) {
		return fmt.Errorf("fake: version %s of unknown policy %s", v.ID, v.PolicyID)
	}
	for _, other := range r.t().versions.rows {
		if other.PolicyID == v.PolicyID && other.Version == v.Version {
			return core.E(core.CodeInvalidState, "policy %s already has a version %d; retry", v.PolicyID, v.Version)
		}
	}
	return r.t().versions.insert(v.ID, v)
}

// verified re-reads a version's IR from its canonical form, as the store reads it back.
func verified(v policy.Version) (policy.Version, error) {
	ir, err := policy.ParseIR(v.IR.Canonical(), v.SHA256)
	if err != nil {
		return policy.Version{}, fmt.Errorf("fake: policy version %s: %w", v.ID, err)
	}
	v.IR = ir
	return v, nil
}

// owns reports whether the policy is the tenant's (versions are stored without their tenant
// here; the policy carries it).
func (r policyRepo) owns(tenantID, policyID string) bool {
	p, ok := r.t().policies.rows[policyID]
	return ok && p.TenantID == tenantID
}

func (r policyRepo) FindVersion(_ context.Context, tenantID, policyID, versionID string) (policy.Version, error) {
	v, ok := r.t().versions.rows[versionID]
	if !ok || v.PolicyID != policyID || !r.owns(tenantID, policyID) {
		return policy.Version{}, fmt.Errorf("fake: policy %s has no version %s", policyID, versionID)
	}
	return verified(v)
}

func (r policyRepo) ListVersions(_ context.Context, tenantID, policyID string, p ports.Page) ([]policy.Version, int, error) {
	rows := r.t().versions.filter(func(v policy.Version) bool { return v.PolicyID == policyID && r.owns(tenantID, policyID) }, false)
	slices.SortStableFunc(rows, func(a, b policy.Version) int { return cmp.Compare(a.Version, b.Version) })
	out, total := page(rows, p)
	for i, v := range out {
		var err error
		if out[i], err = verified(v); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// CreateAttachment refuses a subject's second active attachment as POLICY_SUBJECT_ATTACHED.
func (r policyRepo) CreateAttachment(_ context.Context, a policy.Attachment) error {
	for _, other := range r.t().attachments.rows {
		if other.DetachedAt == nil && other.TenantID == a.TenantID && other.Environment == a.Environment &&
			other.SubjectType == a.SubjectType && other.SubjectID == a.SubjectID {
			return core.E(policy.CodeSubjectAttached, "%s %s already has an active policy; detach it first", a.SubjectType, a.SubjectID)
		}
	}
	a.DetachedAt = nil
	return r.t().attachments.insert(a.ID, a)
}

func (r policyRepo) LockAttachment(_ context.Context, tenantID string, env core.Environment, id string) (policy.Attachment, error) {
	a, ok := r.t().attachments.rows[id]
	if !ok || a.TenantID != tenantID || a.Environment != env {
		return policy.Attachment{}, errAttachmentNotFound
	}
	return a, nil
}

func (r policyRepo) active(tenantID, policyID string) []policy.Attachment {
	return r.t().attachments.filter(func(a policy.Attachment) bool {
		return a.TenantID == tenantID && a.PolicyID == policyID && a.DetachedAt == nil
	}, false)
}

func (r policyRepo) ListAttachments(_ context.Context, tenantID, policyID string, limit int) ([]policy.Attachment, error) {
	out, _ := page(r.active(tenantID, policyID), ports.Page{Take: limit})
	return out, nil
}

func (r policyRepo) FindSubjectAttachment(_ context.Context, tenantID string, env core.Environment, t policy.SubjectType, subjectID string) (policy.Attachment, bool, error) {
	for _, a := range r.t().attachments.filter(func(a policy.Attachment) bool {
		return a.DetachedAt == nil && a.TenantID == tenantID && a.Environment == env && a.SubjectType == t && a.SubjectID == subjectID
	}, false) {
		return a, true, nil
	}
	return policy.Attachment{}, false, nil
}

// Detach sets detachedAt once; a detached attachment keeps its first time.
func (r policyRepo) Detach(_ context.Context, tenantID, id string, at time.Time) error {
	if a, ok := r.t().attachments.rows[id]; ok && a.TenantID == tenantID && a.DetachedAt == nil {
		a.DetachedAt = &at
		r.t().attachments.rows[id] = a
	}
	return nil
}

func (r policyRepo) DetachAll(ctx context.Context, tenantID, policyID string, at time.Time) (int, error) {
	active := r.active(tenantID, policyID)
	for _, a := range active {
		_ = r.Detach(ctx, tenantID, a.ID, at)
	}
	return len(active), nil
}

func (r policyRepo) CreateDecision(_ context.Context, d policy.Decision) error {
	return r.t().decisions.insert(d.ID, d)
}

func (r policyRepo) FindDecision(_ context.Context, tenantID string, env core.Environment, id string) (policy.Decision, error) {
	d, ok := r.t().decisions.rows[id]
	if !ok || d.TenantID != tenantID || d.Environment != env {
		return policy.Decision{}, core.NotFound("DECISION_NOT_FOUND", "decision")
	}
	return d, nil
}

func (r policyRepo) ListDecisions(_ context.Context, f ports.DecisionFilter, p ports.Page) ([]policy.Decision, int, error) {
	out, total := page(r.t().decisions.filter(func(d policy.Decision) bool {
		return d.TenantID == f.TenantID && d.Environment == f.Environment && (f.PolicyID == "" || d.PolicyID == f.PolicyID) &&
			(f.ReferenceID == "" || d.ReferenceID == f.ReferenceID)
	}, true), p)
	return out, total, nil
}
