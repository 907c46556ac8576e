package http

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/policies"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/policy"
)

// policyHandlers serve spend policies, their versions and attachments.
type policyHandlers struct{ svc *policies.Service }

// policyEndpoints are the routes of spend policies (docs/api.md Endpoints, Policies). Reads take
// policies:read, writes policies:write (which agent keys never hold), the dry run
// policies:evaluate.
func (h *policyHandlers) policyEndpoints() []Endpoint {
	read := []auth.Scope{auth.ScopePoliciesRead}
	write := []auth.Scope{auth.ScopePoliciesWrite}
	pathID := []Param{{Name: "id", In: "path"}}
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	return []Endpoint{
		{Method: "POST", Path: "/v1/policies", Summary: "Create a policy: the document compiles to immutable version 1, which is activated", Tag: "policies",
			Auth: authRequired, Scopes: write, Request: policyCreateRequest{},
			Responses: map[int]any{201: policyResponse{}, 400: Envelope{}}, Handler: h.createPolicy},
		{Method: "GET", Path: "/v1/policies", Summary: "List policies of the caller's environment", Tag: "policies",
			Auth: authRequired, Scopes: read, Params: paging,
			Responses: map[int]any{200: policyListResponse{}}, Handler: h.listPolicies},
		{Method: "POST", Path: "/v1/policies/evaluate", Summary: "Dry run: evaluate a transaction against a policy (by id or by subject) with zero spend; writes a decision log", Tag: "policies",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePoliciesEvaluate}, Request: policyEvaluateRequest{},
			Responses: map[int]any{200: policyEvaluateResponse{}, 400: Envelope{}, 404: Envelope{}, 409: Envelope{}, 501: Envelope{}}, Handler: h.evaluatePolicy},
		{Method: "DELETE", Path: "/v1/policies/attachments/{attachmentId}", Summary: "Detach a policy from its subject", Tag: "policies",
			Auth: authRequired, Scopes: write, Params: []Param{{Name: "attachmentId", In: "path"}},
			Responses: map[int]any{200: policyAttachmentResponse{}, 404: Envelope{}}, Handler: h.detachPolicy},
		{Method: "GET", Path: "/v1/policies/{id}", Summary: "A policy", Tag: "policies",
			Auth: authRequired, Scopes: read, Params: pathID,
			Responses: map[int]any{200: policyResponse{}, 404: Envelope{}}, Handler: h.getPolicy},
		{Method: "DELETE", Path: "/v1/policies/{id}", Summary: "Archive a policy and detach it from every subject", Tag: "policies",
			Auth: authRequired, Scopes: write, Params: pathID,
			Responses: map[int]any{200: policyResponse{}, 404: Envelope{}}, Handler: h.archivePolicy},
		{Method: "POST", Path: "/v1/policies/{id}/versions", Summary: "Append a version compiled from the document and make it active", Tag: "policies",
			Auth: authRequired, Scopes: write, Params: pathID, Request: policyVersionRequest{},
			Responses: map[int]any{201: policyVersionResponse{}, 400: Envelope{}, 404: Envelope{}, 409: Envelope{}}, Handler: h.createPolicyVersion},
		{Method: "GET", Path: "/v1/policies/{id}/versions", Summary: "List a policy's versions, oldest first", Tag: "policies",
			Auth: authRequired, Scopes: read, Params: append(append([]Param{}, pathID...), paging...),
			Responses: map[int]any{200: policyVersionListResponse{}, 404: Envelope{}}, Handler: h.listPolicyVersions},
		{Method: "POST", Path: "/v1/policies/{id}/attachments", Summary: "Attach the policy to a subject (one active policy per subject)", Tag: "policies",
			Auth: authRequired, Scopes: write, Params: pathID, Request: policyAttachRequest{},
			Responses: map[int]any{201: policyAttachmentResponse{}, 400: Envelope{}, 404: Envelope{}, 409: Envelope{}, 501: Envelope{}}, Handler: h.attachPolicy},
		{Method: "GET", Path: "/v1/policies/{id}/attachments", Summary: "List the policy's active attachments", Tag: "policies",
			Auth: authRequired, Scopes: read, Params: pathID,
			Responses: map[int]any{200: policyAttachmentListResponse{}, 404: Envelope{}}, Handler: h.listPolicyAttachments},
	}
}

func (h *policyHandlers) createPolicy(c *fiber.Ctx) error {
	var req policyCreateBody
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	p, err := h.svc.CreatePolicy(c.UserContext(), principal(c), policies.CreatePolicyInput{Name: req.Name, Document: req.Document})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toPolicy(p))
}

func (h *policyHandlers) listPolicies(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	policies, total, err := h.svc.ListPolicies(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := policyListResponse{Policies: make([]policyResponse, len(policies)), Total: total}
	for i, p := range policies {
		out.Policies[i] = toPolicy(p)
	}
	return c.JSON(out)
}

func (h *policyHandlers) getPolicy(c *fiber.Ctx) error {
	p, err := h.svc.GetPolicy(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toPolicy(p))
}

func (h *policyHandlers) archivePolicy(c *fiber.Ctx) error {
	p, err := h.svc.ArchivePolicy(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toPolicy(p))
}

func (h *policyHandlers) createPolicyVersion(c *fiber.Ctx) error {
	var req policyVersionBody
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	v, err := h.svc.CreatePolicyVersion(c.UserContext(), principal(c), c.Params("id"), req.Document)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toPolicyVersion(v))
}

func (h *policyHandlers) listPolicyVersions(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	versions, total, err := h.svc.ListPolicyVersions(c.UserContext(), principal(c), c.Params("id"), page)
	if err != nil {
		return err
	}
	out := policyVersionListResponse{Versions: make([]policyVersionResponse, len(versions)), Total: total}
	for i, v := range versions {
		out.Versions[i] = toPolicyVersion(v)
	}
	return c.JSON(out)
}

func (h *policyHandlers) attachPolicy(c *fiber.Ctx) error {
	var req policyAttachRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := h.svc.AttachPolicy(c.UserContext(), principal(c), c.Params("id"),
		policies.AttachInput{SubjectType: req.SubjectType, SubjectID: req.SubjectID})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toPolicyAttachment(a))
}

func (h *policyHandlers) listPolicyAttachments(c *fiber.Ctx) error {
	atts, err := h.svc.ListPolicyAttachments(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	out := policyAttachmentListResponse{Attachments: make([]policyAttachmentResponse, len(atts)), Total: len(atts)}
	for i, a := range atts {
		out.Attachments[i] = toPolicyAttachment(a)
	}
	return c.JSON(out)
}

func (h *policyHandlers) detachPolicy(c *fiber.Ctx) error {
	a, err := h.svc.DetachPolicy(c.UserContext(), principal(c), strings.TrimSpace(c.Params("attachmentId")))
	if err != nil {
		return err
	}
	return c.JSON(toPolicyAttachment(a))
}

func (h *policyHandlers) evaluatePolicy(c *fiber.Ctx) error {
	var req policyEvaluateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	d, err := h.svc.EvaluatePolicy(c.UserContext(), principal(c), policies.EvaluateInput{
		PolicyID: req.PolicyID, SubjectType: req.SubjectType, SubjectID: req.SubjectID,
		AmountUSD: req.AmountUSD, MCC: req.MCC, Counterparty: req.Counterparty,
	})
	if err != nil {
		return err
	}
	return c.JSON(toPolicyEvaluation(d))
}

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
