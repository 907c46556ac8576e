package http

import (
	"encoding/json"
	"time"

	"github.com/corridorhq/corridor/core/policy"
)

// policyDocument documents the schemaVersion 1 document in OpenAPI. Requests are not decoded
// into it: the document is kept raw and parsed by core/policy, so an unknown field at any
// depth is refused with its full path (document.limits.yearlyUsd).
type policyDocument struct {
	SchemaVersion  int                   `json:"schemaVersion" oas:"required" description:"The document format's version: must be the integer 1."`
	Limits         *policyDocumentLimits `json:"limits,omitempty"`
	MCC            *policyDocumentLists  `json:"mcc,omitempty"`
	Counterparties *policyDocumentLists  `json:"counterparties,omitempty"`
}

type policyDocumentLimits struct {
	PerTransactionUSD *string `json:"perTransactionUsd,omitempty" oas:"pattern=^[0-9]+(\\.[0-9]+)?$"`
	DailyUSD          *string `json:"dailyUsd,omitempty" oas:"pattern=^[0-9]+(\\.[0-9]+)?$"`
	WeeklyUSD         *string `json:"weeklyUsd,omitempty" oas:"pattern=^[0-9]+(\\.[0-9]+)?$"`
	MonthlyUSD        *string `json:"monthlyUsd,omitempty" oas:"pattern=^[0-9]+(\\.[0-9]+)?$"`
}

type policyDocumentLists struct {
	Blocked *[]string `json:"blocked,omitempty" description:"Values never allowed. At most 1000 entries."`
	Allowed *[]string `json:"allowed,omitempty" description:"The only values allowed (an allowlist); absent or empty: no allowlist. At most 1000 entries."`
}

// policyCreateRequest documents POST /v1/policies; policyCreateBody decodes it.
type policyCreateRequest struct {
	Name     string         `json:"name" oas:"required,maxLength=200"`
	Document policyDocument `json:"document" oas:"required"`
}

type policyCreateBody struct {
	Name     string          `json:"name"`
	Document json.RawMessage `json:"document"`
}

// policyVersionRequest documents POST /v1/policies/{id}/versions; policyVersionBody decodes it.
type policyVersionRequest struct {
	Document policyDocument `json:"document" oas:"required"`
}

type policyVersionBody struct {
	Document json.RawMessage `json:"document"`
}

type policyResponse struct {
	PolicyID        string     `json:"policyId" oas:"required"`
	Name            string     `json:"name" oas:"required"`
	Status          string     `json:"status" oas:"required,enum=ACTIVE|ARCHIVED"`
	ActiveVersionID string     `json:"activeVersionId" oas:"required"`
	ActiveVersion   int        `json:"activeVersion" oas:"required" description:"The number of the version in force, the one evaluated: 1 for a new policy; each new version becomes the active one."`
	CreatedAt       time.Time  `json:"createdAt" oas:"required"`
	ArchivedAt      *time.Time `json:"archivedAt" oas:"required"`
}

type policyListResponse struct {
	Policies []policyResponse `json:"policies" oas:"required"`
	Total    int              `json:"total" oas:"required"`
}

func toPolicy(p policy.Policy) policyResponse {
	return policyResponse{PolicyID: p.ID, Name: p.Name, Status: string(p.Status), ActiveVersionID: p.ActiveVersionID,
		ActiveVersion: p.ActiveVersion, CreatedAt: p.CreatedAt, ArchivedAt: p.ArchivedAt}
}

// policyVersionResponse is a Version. ir is the canonical serialisation itself (compact, keys
// sorted); sha256 is over exactly those bytes.
type policyVersionResponse struct {
	VersionID string    `json:"versionId" oas:"required"`
	PolicyID  string    `json:"policyId" oas:"required"`
	Version   int       `json:"version" oas:"required" description:"The version's number within its policy, from 1."`
	SHA256    string    `json:"sha256" oas:"required"`
	IR        any       `json:"ir" oas:"required" description:"The compiled policy, canonical JSON (keys sorted, empty sections omitted): sha256 is the hash of exactly these bytes (docs/policies.md)."`
	CreatedAt time.Time `json:"createdAt" oas:"required"`
}

type policyVersionListResponse struct {
	Versions []policyVersionResponse `json:"versions" oas:"required"`
	Total    int                     `json:"total" oas:"required"`
}

func toPolicyVersion(v policy.Version) policyVersionResponse {
	return policyVersionResponse{VersionID: v.ID, PolicyID: v.PolicyID, Version: v.Version, SHA256: v.SHA256,
		IR: json.RawMessage(v.IR.Canonical()), CreatedAt: v.CreatedAt}
}

type policyAttachRequest struct {
	SubjectType string `json:"subjectType" oas:"required,enum=wallet|card|agent|treasury_account|service_balance"`
	SubjectID   string `json:"subjectId" oas:"required"`
}

type policyAttachmentResponse struct {
	AttachmentID string     `json:"attachmentId" oas:"required"`
	PolicyID     string     `json:"policyId" oas:"required"`
	SubjectType  string     `json:"subjectType" oas:"required,enum=wallet|card|agent|treasury_account|service_balance"`
	SubjectID    string     `json:"subjectId" oas:"required"`
	AttachedAt   time.Time  `json:"attachedAt" oas:"required"`
	DetachedAt   *time.Time `json:"detachedAt" oas:"required"`
}

type policyAttachmentListResponse struct {
	Attachments []policyAttachmentResponse `json:"attachments" oas:"required"`
	Total       int                        `json:"total" oas:"required"`
}

func toPolicyAttachment(a policy.Attachment) policyAttachmentResponse {
	return policyAttachmentResponse{AttachmentID: a.ID, PolicyID: a.PolicyID, SubjectType: string(a.SubjectType),
		SubjectID: a.SubjectID, AttachedAt: a.AttachedAt, DetachedAt: a.DetachedAt}
}

type policyEvaluateRequest struct {
	PolicyID     string  `json:"policyId,omitempty"`
	SubjectType  string  `json:"subjectType,omitempty" oas:"enum=wallet|card|agent|treasury_account|service_balance"`
	SubjectID    string  `json:"subjectId,omitempty"`
	AmountUSD    string  `json:"amountUsd" oas:"required"`
	MCC          *string `json:"mcc,omitempty" oas:"pattern=^[0-9]{4}$"`
	Counterparty *string `json:"counterparty,omitempty" oas:"pattern=^0x[0-9a-fA-F]{40}$" description:"The counterparty's EVM address, checked against the counterparties lists; absent: none."`
}

type ruleTraceResponse struct {
	Rule   string `json:"rule" oas:"required" description:"The rule's name, the document's path (mcc.blocked, counterparties.allowed)."`
	Result string `json:"result" oas:"required,enum=pass|fail|skip" description:"The rule's outcome: pass, fail, or skip when it does not apply."`
	Code   string `json:"code" oas:"required,enum=COUNTERPARTY_BLOCKED|COUNTERPARTY_NOT_ALLOWED|MCC_BLOCKED|MCC_NOT_ALLOWED|PER_TXN_LIMIT|DAILY_CAP|WEEKLY_CAP|MONTHLY_CAP"`
}

type policyEvaluateResponse struct {
	Allow         bool                `json:"allow" oas:"required" description:"Whether the policy allows the transaction."`
	Reason        string              `json:"reason" oas:"required" description:"ALLOWED, or the code of the first rule that failed (such as MCC_BLOCKED)."`
	PolicyID      string              `json:"policyId" oas:"required"`
	PolicyVersion int                 `json:"policyVersion" oas:"required" description:"The number of the policy version evaluated."`
	SHA256        string              `json:"sha256" oas:"required"`
	RuleTrace     []ruleTraceResponse `json:"ruleTrace" oas:"required" description:"Each rule the policy has, in order, with whether it passed, failed or was skipped."`
	DecisionLogID string              `json:"decisionLogId" oas:"required"`
}

func toPolicyEvaluation(d policy.Decision) policyEvaluateResponse {
	trace := make([]ruleTraceResponse, len(d.Verdict.Trace))
	for i, e := range d.Verdict.Trace {
		trace[i] = ruleTraceResponse{Rule: e.Rule, Result: string(e.Result), Code: e.Code}
	}
	return policyEvaluateResponse{Allow: d.Verdict.Allow, Reason: d.Verdict.Reason, PolicyID: d.PolicyID,
		PolicyVersion: d.PolicyVersion, SHA256: d.SHA256, RuleTrace: trace, DecisionLogID: d.ID}
}
