package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/policy"
)

// PolicyRepo stores spend policies, their immutable versions, attachments and decision logs.
// Lookups scoped by tenant and environment answer POLICY_NOT_FOUND / ATTACHMENT_NOT_FOUND for
// another tenant's or environment's object. A version read back is verified: its IR must be
// canonical and hash to the recorded sha256, else the read fails (a subsystem error).
type PolicyRepo interface {
	// CreatePolicy inserts a policy with its first version (the version the policy points at).
	CreatePolicy(ctx context.Context, p policy.Policy, v policy.Version) error
	FindPolicy(ctx context.Context, tenantID string, env core.Environment, id string) (policy.Policy, error)
	// LockPolicy is FindPolicy that locks the row for the rest of the transaction.
	LockPolicy(ctx context.Context, tenantID string, env core.Environment, id string) (policy.Policy, error)
	ListPolicies(ctx context.Context, tenantID string, env core.Environment, page Page) ([]policy.Policy, int, error)
	// UpdatePolicy saves status, archivedAt and the active pointer.
	UpdatePolicy(ctx context.Context, p policy.Policy) error

	// CreateVersion appends a version of the tenant's policy; versions are never updated or
	// deleted.
	CreateVersion(ctx context.Context, tenantID string, v policy.Version) error
	FindVersion(ctx context.Context, tenantID, policyID, versionID string) (policy.Version, error)
	// ListVersions lists a tenant's policy's versions, oldest first.
	ListVersions(ctx context.Context, tenantID, policyID string, page Page) ([]policy.Version, int, error)

	// CreateAttachment attaches; a subject that already has an active attachment answers
	// POLICY_SUBJECT_ATTACHED with details.attachmentId and details.policyId.
	CreateAttachment(ctx context.Context, a policy.Attachment) error
	// LockAttachment loads and locks an attachment (active or detached) of the tenant.
	LockAttachment(ctx context.Context, tenantID string, env core.Environment, id string) (policy.Attachment, error)
	// ListAttachments lists a tenant's policy's active attachments, oldest first (bounded by
	// limit).
	ListAttachments(ctx context.Context, tenantID, policyID string, limit int) ([]policy.Attachment, error)
	// FindSubjectAttachment is the subject's active attachment, or ok=false.
	FindSubjectAttachment(ctx context.Context, tenantID string, env core.Environment, t policy.SubjectType, subjectID string) (policy.Attachment, bool, error)
	// Detach sets detachedAt on one active attachment of the tenant.
	Detach(ctx context.Context, tenantID, id string, at time.Time) error
	// DetachAll detaches every active attachment of a tenant's policy and returns how many.
	DetachAll(ctx context.Context, tenantID, policyID string, at time.Time) (int, error)

	CreateDecision(ctx context.Context, d policy.Decision) error
	FindDecision(ctx context.Context, tenantID string, env core.Environment, id string) (policy.Decision, error)
	// ListDecisions lists decisions newest first.
	ListDecisions(ctx context.Context, f DecisionFilter, page Page) ([]policy.Decision, int, error)
}

// DecisionFilter selects decision logs of one tenant and environment.
type DecisionFilter struct {
	TenantID    string
	Environment core.Environment
	PolicyID    string // "" = any
	ReferenceID string // "" = any; a payment id selects the gate's decisions on that payment
}
