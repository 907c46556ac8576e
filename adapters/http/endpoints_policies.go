package http

import "github.com/corridorhq/corridor/core/auth"

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
