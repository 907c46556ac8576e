package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
)

type policyModel struct {
	bun.BaseModel   `bun:"table:policies"`
	ID              string     `bun:"id,pk"`
	TenantID        string     `bun:"tenant_id,pk"`
	Environment     string     `bun:"environment"`
	Name            string     `bun:"name"`
	Status          string     `bun:"status"`
	ActiveVersionID string     `bun:"active_version_id"`
	ActiveVersion   int        `bun:"active_version"`
	CreatedAt       time.Time  `bun:"created_at"`
	ArchivedAt      *time.Time `bun:"archived_at"`
}

func (m policyModel) domain() (policy.Policy, error) {
	p := policy.Policy{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), Name: m.Name,
		Status: policy.Status(m.Status), ActiveVersionID: m.ActiveVersionID, ActiveVersion: m.ActiveVersion,
		CreatedAt: m.CreatedAt.UTC(), ArchivedAt: utcPtr(m.ArchivedAt)}
	if p.Status != policy.StatusActive && p.Status != policy.StatusArchived {
		return policy.Policy{}, fmt.Errorf("postgres: policy %s has status %q", m.ID, m.Status)
	}
	return p, nil
}

func policyFromDomain(p policy.Policy) policyModel {
	return policyModel{ID: p.ID, TenantID: p.TenantID, Environment: string(p.Environment), Name: p.Name,
		Status: string(p.Status), ActiveVersionID: p.ActiveVersionID, ActiveVersion: p.ActiveVersion,
		CreatedAt: p.CreatedAt, ArchivedAt: p.ArchivedAt}
}

type policyVersionModel struct {
	bun.BaseModel `bun:"table:policy_versions"`
	ID            string          `bun:"id,pk"`
	TenantID      string          `bun:"tenant_id,pk"`
	PolicyID      string          `bun:"policy_id"`
	Version       int             `bun:"version"`
	SHA256        string          `bun:"sha256"`
	IR            string          `bun:"ir"`
	Document      json.RawMessage `bun:"document,type:jsonb"`
	CreatedAt     time.Time       `bun:"created_at"`
}

// domain re-verifies the stored IR against its sha256 (policy.ParseIR), so a row altered
// behind the service's back fails loudly instead of evaluating to something else.
func (m policyVersionModel) domain() (policy.Version, error) {
	ir, err := policy.ParseIR([]byte(m.IR), m.SHA256)
	if err != nil {
		return policy.Version{}, fmt.Errorf("postgres: policy version %s: %w", m.ID, err)
	}
	return policy.Version{ID: m.ID, PolicyID: m.PolicyID, Version: m.Version, IR: ir, SHA256: m.SHA256,
		Document: m.Document, CreatedAt: m.CreatedAt.UTC()}, nil
}

type policyAttachmentModel struct {
	bun.BaseModel `bun:"table:policy_attachments"`
	ID            string     `bun:"id,pk"`
	TenantID      string     `bun:"tenant_id,pk"`
	Environment   string     `bun:"environment"`
	PolicyID      string     `bun:"policy_id"`
	SubjectType   string     `bun:"subject_type"`
	SubjectID     string     `bun:"subject_id"`
	AttachedAt    time.Time  `bun:"attached_at"`
	DetachedAt    *time.Time `bun:"detached_at"`
}

func (m policyAttachmentModel) domain() policy.Attachment {
	return policy.Attachment{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment),
		PolicyID: m.PolicyID, SubjectType: policy.SubjectType(m.SubjectType), SubjectID: m.SubjectID,
		AttachedAt: m.AttachedAt.UTC(), DetachedAt: utcPtr(m.DetachedAt)}
}

type traceEntryJSON struct {
	Rule   string `json:"rule"`
	Result string `json:"result"`
	Code   string `json:"code"`
}

type policyDecisionModel struct {
	bun.BaseModel   `bun:"table:policy_decisions"`
	ID              string          `bun:"id,pk"`
	TenantID        string          `bun:"tenant_id,pk"`
	Environment     string          `bun:"environment"`
	PolicyID        string          `bun:"policy_id"`
	VersionID       string          `bun:"version_id"`
	PolicyVersion   int             `bun:"policy_version"`
	SHA256          string          `bun:"sha256"`
	SubjectType     *string         `bun:"subject_type"`
	SubjectID       *string         `bun:"subject_id"`
	Source          string          `bun:"source"`
	ReferenceID     *string         `bun:"reference_id"`
	Mode            *string         `bun:"mode"`
	AmountBaseUnits int64           `bun:"amount_base_units"`
	MCC             *string         `bun:"mcc"`
	Counterparty    *string         `bun:"counterparty"`
	Allow           bool            `bun:"allow"`
	Reason          string          `bun:"reason"`
	RuleTrace       json.RawMessage `bun:"rule_trace,type:jsonb"`
	Blocked         bool            `bun:"blocked"`
	CreatedAt       time.Time       `bun:"created_at"`
}

func decisionFromDomain(d policy.Decision) (policyDecisionModel, error) {
	trace := make([]traceEntryJSON, len(d.Verdict.Trace))
	for i, e := range d.Verdict.Trace {
		trace[i] = traceEntryJSON{Rule: e.Rule, Result: string(e.Result), Code: e.Code}
	}
	raw, err := json.Marshal(trace)
	return policyDecisionModel{
		ID: d.ID, TenantID: d.TenantID, Environment: string(d.Environment), PolicyID: d.PolicyID, VersionID: d.VersionID,
		PolicyVersion: d.PolicyVersion, SHA256: d.SHA256, SubjectType: nullable(string(d.SubjectType)), SubjectID: nullable(d.SubjectID),
		Source: string(d.Source), ReferenceID: nullable(d.ReferenceID), Mode: nullable(string(d.Mode)),
		AmountBaseUnits: d.Transaction.AmountBaseUnits, MCC: nullable(d.Transaction.MCC), Counterparty: nullable(d.Transaction.Counterparty),
		Allow: d.Verdict.Allow, Reason: d.Verdict.Reason, RuleTrace: raw, Blocked: d.Blocked, CreatedAt: d.CreatedAt,
	}, err
}

func (m policyDecisionModel) domain() (policy.Decision, error) {
	var trace []traceEntryJSON
	if err := json.Unmarshal(m.RuleTrace, &trace); err != nil {
		return policy.Decision{}, fmt.Errorf("postgres: decision %s has an unreadable rule trace: %w", m.ID, err)
	}
	d := policy.Decision{
		ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), PolicyID: m.PolicyID, VersionID: m.VersionID,
		PolicyVersion: m.PolicyVersion, SHA256: m.SHA256, SubjectType: policy.SubjectType(deref(m.SubjectType)), SubjectID: deref(m.SubjectID),
		Source: policy.Source(m.Source), ReferenceID: deref(m.ReferenceID), Mode: policy.Mode(deref(m.Mode)),
		Transaction: policy.Transaction{AmountBaseUnits: m.AmountBaseUnits, MCC: deref(m.MCC), Counterparty: deref(m.Counterparty)},
		Verdict:     policy.Verdict{Allow: m.Allow, Reason: m.Reason},
		Blocked:     m.Blocked, CreatedAt: m.CreatedAt.UTC(),
	}
	for _, e := range trace {
		d.Verdict.Trace = append(d.Verdict.Trace, policy.TraceEntry{Rule: e.Rule, Result: policy.Result(e.Result), Code: e.Code})
	}
	return d, nil
}

// policyRepo's unit is the unit's share of a pipeline batch (nil outside one): an attachment
// it creates makes the batch's card reads stale (batch_claim_cards.go).
type policyRepo struct {
	db   bun.IDB
	unit *unitLedger
}

var _ ports.PolicyRepo = policyRepo{}

var (
	errPolicyNotFound     = core.NotFound(policy.CodePolicyNotFound, "policy")
	errAttachmentNotFound = core.NotFound(policy.CodeAttachmentNotFound, "attachment")
)

func (r policyRepo) CreatePolicy(ctx context.Context, p policy.Policy, v policy.Version) error {
	m := policyFromDomain(p)
	if _, err := r.db.NewInsert().Model(&m).Exec(ctx); err != nil {
		return err
	}
	return r.CreateVersion(ctx, p.TenantID, v)
}

func (r policyRepo) findPolicy(ctx context.Context, tenantID string, env core.Environment, id string, lock bool) (policy.Policy, error) {
	var m policyModel
	q := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id)
	if lock {
		q = q.For("UPDATE")
	}
	err := q.Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return policy.Policy{}, errPolicyNotFound
	}
	if err != nil {
		return policy.Policy{}, err
	}
	return m.domain()
}

func (r policyRepo) FindPolicy(ctx context.Context, tenantID string, env core.Environment, id string) (policy.Policy, error) {
	return r.findPolicy(ctx, tenantID, env, id, false)
}

func (r policyRepo) LockPolicy(ctx context.Context, tenantID string, env core.Environment, id string) (policy.Policy, error) {
	return r.findPolicy(ctx, tenantID, env, id, true)
}

func (r policyRepo) ListPolicies(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]policy.Policy, int, error) {
	var rows []policyModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", tenantID, env).
		OrderExpr("id ASC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[policy.Policy](rows)
	if err != nil {
		return nil, 0, err
	}
	return out, int(total), nil
}

func (r policyRepo) UpdatePolicy(ctx context.Context, p policy.Policy) error {
	m := policyFromDomain(p)
	_, err := r.db.NewUpdate().Model(&m).Column("status", "active_version_id", "active_version", "archived_at").
		WherePK().Exec(ctx)
	return err
}

func (r policyRepo) CreateVersion(ctx context.Context, tenantID string, v policy.Version) error {
	doc := v.Document
	if !json.Valid(doc) {
		return fmt.Errorf("postgres: policy version %s: document is not JSON", v.ID)
	}
	m := policyVersionModel{ID: v.ID, TenantID: tenantID, PolicyID: v.PolicyID, Version: v.Version, SHA256: v.SHA256,
		IR: string(v.IR.Canonical()), Document: doc, CreatedAt: v.CreatedAt}
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	if code, constraint := constraintOf(err); code == "23505" && constraint == "policy_versions_policy_version_key" {
		return core.E(core.CodeInvalidState, "policy %s already has a version %d; retry", v.PolicyID, v.Version)
	}
	return err
}

func (r policyRepo) FindVersion(ctx context.Context, tenantID, policyID, versionID string) (policy.Version, error) {
	var m policyVersionModel
	err := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND policy_id = ? AND id = ?", tenantID, policyID, versionID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return policy.Version{}, fmt.Errorf("postgres: policy %s has no version %s", policyID, versionID)
	}
	if err != nil {
		return policy.Version{}, err
	}
	return m.domain()
}

func (r policyRepo) ListVersions(ctx context.Context, tenantID, policyID string, page ports.Page) ([]policy.Version, int, error) {
	var rows []policyVersionModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND policy_id = ?", tenantID, policyID).
		OrderExpr("version ASC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[policy.Version](rows)
	if err != nil {
		return nil, 0, err
	}
	return out, int(total), nil
}

func (r policyRepo) CreateAttachment(ctx context.Context, a policy.Attachment) error {
	r.unit.touchCard(attachmentsTouched)
	m := policyAttachmentModel{ID: a.ID, TenantID: a.TenantID, Environment: string(a.Environment), PolicyID: a.PolicyID,
		SubjectType: string(a.SubjectType), SubjectID: a.SubjectID, AttachedAt: a.AttachedAt}
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	if code, constraint := constraintOf(err); code == "23505" && constraint == "policy_attachments_subject_active_key" {
		// The transaction is aborted by the violation; the caller checks first under a lock,
		// so this only happens in a race, and the message says what to do.
		return core.E(policy.CodeSubjectAttached, "%s %s already has an active policy; detach it first", a.SubjectType, a.SubjectID)
	}
	return err
}

func (r policyRepo) LockAttachment(ctx context.Context, tenantID string, env core.Environment, id string) (policy.Attachment, error) {
	var m policyAttachmentModel
	err := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id).For("UPDATE").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return policy.Attachment{}, errAttachmentNotFound
	}
	if err != nil {
		return policy.Attachment{}, err
	}
	return m.domain(), nil
}

func (r policyRepo) ListAttachments(ctx context.Context, tenantID, policyID string, limit int) ([]policy.Attachment, error) {
	var rows []policyAttachmentModel
	err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND policy_id = ? AND detached_at IS NULL", tenantID, policyID).
		OrderExpr("id ASC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, err
	}
	return infallibleRows(rows), nil
}

func (r policyRepo) FindSubjectAttachment(ctx context.Context, tenantID string, env core.Environment, t policy.SubjectType, subjectID string) (policy.Attachment, bool, error) {
	var m policyAttachmentModel
	err := r.db.NewSelect().Model(&m).
		Where("tenant_id = ? AND environment = ? AND subject_type = ? AND subject_id = ? AND detached_at IS NULL", tenantID, env, t, subjectID).
		Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return policy.Attachment{}, false, nil
	}
	if err != nil {
		return policy.Attachment{}, false, err
	}
	return m.domain(), true, nil
}

func (r policyRepo) Detach(ctx context.Context, tenantID, id string, at time.Time) error {
	_, err := r.db.NewUpdate().Model((*policyAttachmentModel)(nil)).Set("detached_at = ?", at).
		Where("tenant_id = ? AND id = ? AND detached_at IS NULL", tenantID, id).Exec(ctx)
	return err
}

func (r policyRepo) DetachAll(ctx context.Context, tenantID, policyID string, at time.Time) (int, error) {
	res, err := r.db.NewUpdate().Model((*policyAttachmentModel)(nil)).Set("detached_at = ?", at).
		Where("tenant_id = ? AND policy_id = ? AND detached_at IS NULL", tenantID, policyID).Exec(ctx)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func (r policyRepo) CreateDecision(ctx context.Context, d policy.Decision) error {
	m, err := decisionFromDomain(d)
	if err != nil {
		return err
	}
	_, err = r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r policyRepo) FindDecision(ctx context.Context, tenantID string, env core.Environment, id string) (policy.Decision, error) {
	var m policyDecisionModel
	err := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return policy.Decision{}, core.NotFound("DECISION_NOT_FOUND", "decision")
	}
	if err != nil {
		return policy.Decision{}, err
	}
	return m.domain()
}

func (r policyRepo) ListDecisions(ctx context.Context, f ports.DecisionFilter, page ports.Page) ([]policy.Decision, int, error) {
	var rows []policyDecisionModel
	q := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", f.TenantID, f.Environment)
	if f.PolicyID != "" {
		q = q.Where("policy_id = ?", f.PolicyID)
	}
	if f.ReferenceID != "" {
		q = q.Where("reference_id = ?", f.ReferenceID)
	}
	total, err := q.OrderExpr("id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[policy.Decision](rows)
	if err != nil {
		return nil, 0, err
	}
	return out, int(total), nil
}
