package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"corridor/core/auth"
)

// endpointTable is every route of the service. The OpenAPI document is generated from it, and a
// test checks that Fiber's registered routes and the document agree.
func (s *Server) endpointTable() []Endpoint {
	pathID := []Param{{Name: "id", In: "path"}}
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	routes := []Endpoint{
		{Method: "GET", Path: "/healthz", Public: "liveness probe for load balancers; says nothing about any tenant", Summary: "Liveness: the process answers", Tag: "service",
			Responses: map[int]any{200: healthResponse{}}, Handler: s.healthz},
		{Method: "GET", Path: "/readyz", Public: "readiness probe for load balancers; says nothing about any tenant", Summary: "Readiness: the database, each configured chain and the job workers answer; otherwise 503 naming the parts that do not (details.checks)", Tag: "service",
			Responses: map[int]any{200: readinessResponse{}, 503: Envelope{}}, Handler: s.readyz},
		{Method: "GET", Path: "/v1/openapi.json", Public: "the public API contract", Summary: "This OpenAPI document", Tag: "service",
			Responses: map[int]any{200: map[string]any{}}, Handler: s.openapi},
		{Method: "GET", Path: "/v1/capabilities", Public: "self-description; a credential only narrows it to its environment", Summary: "API version, environment, chains and built features", Tag: "service",
			Auth: authOptional, Responses: map[int]any{200: capabilitiesResponse{}}, Handler: s.capabilities},

		{Method: "POST", Path: "/v1/tenants", Public: "a session with no tenant yet creates its tenant; no scope can exist before the tenant", Summary: "Create the session user's tenant, or return the existing one", Tag: "tenants",
			Auth: authRequired, Request: tenantCreateRequest{},
			Responses: map[int]any{201: tenantResponse{}, 200: tenantResponse{}}, Handler: s.createTenant},
		{Method: "GET", Path: "/v1/tenants/current", Public: "any credential may read which tenant it acts for", Summary: "The caller's tenant", Tag: "tenants",
			Auth: authRequired, Responses: map[int]any{200: tenantResponse{}}, Handler: s.currentTenant},
		{Method: "POST", Path: "/v1/tenants/members", Grants: "member_invite", Summary: "Invite a member (returns a one-time inviteToken)", Tag: "members",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeMembersManage}, Request: memberInviteRequest{},
			Responses: map[int]any{201: memberInviteResponse{}}, Handler: s.inviteMember, SecretFields: []string{"inviteToken"}},
		{Method: "GET", Path: "/v1/tenants/members", Summary: "List members", Tag: "members",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeMembersRead}, Params: paging,
			Responses: map[int]any{200: memberListResponse{}}, Handler: s.listMembers},
		{Method: "POST", Path: "/v1/tenants/members/accept", Grants: "member_accept", Public: "the one-time invite token and the invitee's own session authorize it (D20)", Summary: "Accept an invite with its one-time token", Tag: "members",
			Auth: authOptional, Request: memberAcceptRequest{},
			Responses: map[int]any{200: memberResponse{}, 404: Envelope{}}, Handler: s.acceptInvite},
		{Method: "POST", Path: "/v1/tenants/members/{id}/revoke", Summary: "Revoke a member", Tag: "members",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeMembersManage}, Params: pathID,
			Responses: map[int]any{200: memberRevokeResponse{}, 404: Envelope{}}, Staged: s.revokeMember},

		{Method: "POST", Path: "/v1/api-keys", Grants: "api_key", Summary: "Create an API key (plaintext returned once)", Tag: "api-keys",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeKeysManage}, Request: apiKeyCreateRequest{},
			Responses: map[int]any{201: apiKeyCreateResponse{}}, Handler: s.createKey, SecretFields: []string{"key"}},
		{Method: "GET", Path: "/v1/api-keys", Summary: "List API keys of the caller's environment (metadata only)", Tag: "api-keys",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeKeysManage}, Params: paging,
			Responses: map[int]any{200: apiKeyListResponse{}}, Handler: s.listKeys},
		{Method: "POST", Path: "/v1/api-keys/{id}/revoke", Summary: "Revoke an API key (soft, idempotent)", Tag: "api-keys",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeKeysManage}, Params: pathID,
			Responses: map[int]any{200: apiKeyResponse{}, 404: Envelope{}}, Handler: s.revokeKey},
	}
	routes = append(routes, s.ledgerEndpoints()...)
	routes = append(routes, s.walletEndpoints()...)
	routes = append(routes, s.secondaryEndpoints()...)
	routes = append(routes, s.checkoutEndpoints()...)
	routes = append(routes, s.safePaymentEndpoints()...)
	routes = append(routes, s.policyEndpoints()...)
	routes = append(routes, s.agentEndpoints()...)
	routes = append(routes, s.identityEndpoints()...)
	routes = append(routes, s.offrampEndpoints()...)
	if s.cfg.Capabilities.Features["treasury"] {
		routes = append(routes, s.treasuryEndpoints()...)
	}
	// Cards settle through a card spend module: without one the feature is off and its
	// paths answer FEATURE_NOT_AVAILABLE.
	if s.cfg.Capabilities.Features["cards"] {
		routes = append(routes, s.cardEndpoints()...)
	}
	if s.cfg.Capabilities.Features["ramps"] {
		routes = append(routes, s.rampEndpoints()...)
	}
	routes = append(routes, s.twoFactorEndpoints()...)
	routes = append(routes, s.webhookEndpoints()...)
	if s.cfg.Capabilities.Features["invoices"] {
		routes = append(routes, s.invoiceEndpoints()...)
	}
	if s.cfg.Capabilities.Features["offrampPayments"] {
		routes = append(routes, s.offrampPaymentEndpoints()...)
	}
	if s.cfg.Capabilities.Features["pendingClaims"] && s.cfg.Capabilities.Features["offrampPayments"] {
		routes = append(routes, s.claimEndpoints()...)
	}
	if s.cfg.Capabilities.Features["operatorReview"] && s.cfg.Capabilities.Features["offrampPayments"] {
		routes = append(routes, s.adminEndpoints()...)
	}
	for i := range routes {
		if strings.HasPrefix(routes[i].Path, "/v1/sandbox/") {
			routes[i].SandboxOnly = true
		}
	}
	return routes
}

func (s *Server) healthz(c *fiber.Ctx) error { return c.JSON(healthResponse{Status: "ok"}) }
