package http

import "github.com/corridorhq/corridor/core/auth"

// endpoints are the routes of tenancy: the caller's tenant, its members and its API keys.
func (h *tenancyHandlers) endpoints() []Endpoint {
	pathID := []Param{{Name: "id", In: "path"}}
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	return []Endpoint{
		{Method: "POST", Path: "/v1/tenants", Public: "a session with no tenant yet creates its tenant; no scope can exist before the tenant", Summary: "Create the session user's tenant, or return the existing one", Tag: "tenants",
			Auth: authRequired, Request: tenantCreateRequest{},
			Responses: map[int]any{201: tenantResponse{}, 200: tenantResponse{}}, Handler: h.createTenant},
		{Method: "GET", Path: "/v1/tenants/current", Public: "any credential may read which tenant it acts for", Summary: "The caller's tenant", Tag: "tenants",
			Auth: authRequired, Responses: map[int]any{200: tenantResponse{}}, Handler: h.currentTenant},
		{Method: "POST", Path: "/v1/tenants/members", Grants: "member_invite", Summary: "Invite a member (returns a one-time inviteToken)", Tag: "members",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeMembersManage}, Request: memberInviteRequest{},
			Responses: map[int]any{201: memberInviteResponse{}}, Handler: h.inviteMember, SecretFields: []string{"inviteToken"}},
		{Method: "GET", Path: "/v1/tenants/members", Summary: "List members", Tag: "members",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeMembersRead}, Params: paging,
			Responses: map[int]any{200: memberListResponse{}}, Handler: h.listMembers},
		{Method: "POST", Path: "/v1/tenants/members/accept", Grants: "member_accept", Public: "the one-time invite token and the invitee's own session authorize it (docs/decisions/tenancy.md)", Summary: "Accept an invite with its one-time token", Tag: "members",
			Auth: authOptional, Request: memberAcceptRequest{},
			Responses: map[int]any{200: memberResponse{}, 404: Envelope{}}, Handler: h.acceptInvite},
		{Method: "POST", Path: "/v1/tenants/members/{id}/revoke", Summary: "Revoke a member", Tag: "members",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeMembersManage}, Params: pathID,
			Responses: map[int]any{200: memberRevokeResponse{}, 404: Envelope{}}, Prepare: h.revokeMember},
		{Method: "PATCH", Path: "/v1/tenants/members/{id}", Grants: "member_role", Summary: "Change a member's role (the grant rule: the caller holds both roles' powers in TEST and LIVE)", Tag: "members",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeMembersManage}, Params: pathID, Request: memberRoleRequest{},
			Responses: map[int]any{200: memberResponse{}, 404: Envelope{}, 409: Envelope{}}, Handler: h.changeMemberRole},

		{Method: "POST", Path: "/v1/api-keys", Grants: "api_key", Summary: "Create an API key (plaintext returned once)", Tag: "api-keys",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeKeysManage}, Request: apiKeyCreateRequest{},
			Responses: map[int]any{201: apiKeyCreateResponse{}}, Handler: h.createKey, SecretFields: []string{"key"}},
		{Method: "GET", Path: "/v1/api-keys", Summary: "List API keys of the caller's environment (metadata only)", Tag: "api-keys",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeKeysManage}, Params: paging,
			Responses: map[int]any{200: apiKeyListResponse{}}, Handler: h.listKeys},
		{Method: "POST", Path: "/v1/api-keys/{id}/revoke", Summary: "Revoke an API key (soft, idempotent)", Tag: "api-keys",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeKeysManage}, Params: pathID,
			Responses: map[int]any{200: apiKeyResponse{}, 404: Envelope{}}, Handler: h.revokeKey},
	}
}
