package http

import (
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/tenancy"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
)

// tenancyHandlers serve the caller's tenant, its members and its API keys.
type tenancyHandlers struct{ svc *tenancy.Service }

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

func (h *tenancyHandlers) createTenant(c *fiber.Ctx) error {
	var req tenantCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	view, created, err := h.svc.CreateTenant(c.UserContext(), principal(c), tenancy.CreateTenantInput{Name: req.Name, Slug: req.Slug})
	if err != nil {
		return err
	}
	status := fiber.StatusOK
	if created {
		status = fiber.StatusCreated
	}
	return c.Status(status).JSON(toTenant(view))
}

func (h *tenancyHandlers) currentTenant(c *fiber.Ctx) error {
	view, err := h.svc.CurrentTenant(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	return c.JSON(toTenant(view))
}

func (h *tenancyHandlers) inviteMember(c *fiber.Ctx) error {
	var req memberInviteRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	inv, err := h.svc.InviteMember(c.UserContext(), principal(c),
		tenancy.InviteInput{Email: req.Email, DisplayName: req.DisplayName, Role: req.Role})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(memberInviteResponse{memberResponse: toMember(inv.Member), InviteToken: inv.InviteToken})
}

func (h *tenancyHandlers) listMembers(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	members, total, err := h.svc.ListMembers(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := memberListResponse{Members: make([]memberResponse, len(members)), Total: total}
	for i, m := range members {
		out.Members[i] = toMember(m)
	}
	return c.JSON(out)
}

func (h *tenancyHandlers) changeMemberRole(c *fiber.Ctx) error {
	var req memberRoleRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	m, err := h.svc.ChangeMemberRole(c.UserContext(), principal(c), c.Params("id"), tenancy.ChangeRoleInput{Role: req.Role})
	if err != nil {
		return err
	}
	return c.JSON(toMember(m))
}

func (h *tenancyHandlers) acceptInvite(c *fiber.Ctx) error {
	var req memberAcceptRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	in := tenancy.AcceptInput{Token: req.Token, SignerAddress: req.SignerAddress, DisplayName: req.DisplayName}
	if p, ok := principalOf(c); ok && p.Kind == auth.KindSession {
		in.IdentityUserID, in.IdentityEmail = p.UserID, p.Email
	}
	m, err := h.svc.AcceptInvite(c.UserContext(), in)
	if err != nil {
		return err
	}
	return c.JSON(toMember(m))
}

// revokeMember reads which wallets the member's signer still owns on chain outside the
// runner's unit of work, then revokes inside it.
func (h *tenancyHandlers) revokeMember(c *fiber.Ctx) (fiber.Handler, error) {
	read, err := h.svc.ReadRevocation(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		out, err := h.svc.RevokeMember(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.JSON(memberRevokeResponse{ID: out.Member.ID, Status: string(out.Member.Status), StillOwnerOfWalletIDs: out.StillOwnerOfWalletIDs})
	}, nil
}

func (h *tenancyHandlers) createKey(c *fiber.Ctx) error {
	var req apiKeyCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	in := tenancy.CreateKeyInput{Name: req.Name, Environment: req.Environment}
	if req.Scopes != nil {
		in.Scopes, in.ScopesSet = *req.Scopes, true
	}
	expiresAt, err := keyExpiry(req.ExpiresAt)
	if err != nil {
		return err
	}
	in.ExpiresAt = expiresAt
	k, err := h.svc.CreateKey(c.UserContext(), principal(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(apiKeyCreateResponse{apiKeyResponse: toAPIKey(k.Key, h.svc.Now()), Key: k.Plaintext})
}

func (h *tenancyHandlers) listKeys(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	keys, total, err := h.svc.ListKeys(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	now := h.svc.Now()
	out := apiKeyListResponse{APIKeys: make([]apiKeyResponse, len(keys)), Total: total}
	for i, k := range keys {
		out.APIKeys[i] = toAPIKey(k, now)
	}
	return c.JSON(out)
}

func (h *tenancyHandlers) revokeKey(c *fiber.Ctx) error {
	k, err := h.svc.RevokeKey(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toAPIKey(k, h.svc.Now()))
}

// pageOf reads skip and take (take at most 100, default 100).
func pageOf(c *fiber.Ctx) (ports.Page, error) {
	errs := core.FieldErrors{}
	page := pageInto(c, errs)
	return page, errs.Err()
}

// pageInto reads skip and take, recording a bad one in errs (for lists with more parameters).
func pageInto(c *fiber.Ctx, errs core.FieldErrors) ports.Page {
	skip, err := queryInt(c, "skip", 0, ports.MaxSkip)
	if err != nil {
		errs.Add("skip", "must be an integer from 0 to "+strconv.Itoa(ports.MaxSkip))
	}
	take, err := queryInt(c, "take", ports.MaxTake, ports.MaxTake)
	if err != nil {
		errs.Add("take", "must be an integer from 1 to 100")
	}
	if take == 0 && c.Query("take") != "" {
		errs.Add("take", "must be an integer from 1 to 100")
	}
	return ports.Page{Skip: skip, Take: take}
}

type tenantCreateRequest struct {
	Name string `json:"name,omitempty" oas:"maxLength=200"`
	Slug string `json:"slug,omitempty" oas:"pattern=^[a-z0-9]+(-[a-z0-9]+)*$" description:"Lowercase letters, digits and single hyphens; a taken slug gets -2, -3, …; absent: derived from the name."`
}

type tenantResponse struct {
	ID        string    `json:"id" oas:"required"`
	Slug      string    `json:"slug" oas:"required" description:"The tenant's unique slug: lowercase letters, digits and single hyphens."`
	Name      string    `json:"name" oas:"required"`
	Role      string    `json:"role" oas:"required,enum=OWNER|ADMIN|MEMBER"`
	CreatedAt time.Time `json:"createdAt" oas:"required"`
}

func toTenant(v tenancy.TenantView) tenantResponse {
	return tenantResponse{ID: v.Tenant.ID, Slug: v.Tenant.Slug, Name: v.Tenant.Name, Role: v.Role, CreatedAt: v.Tenant.CreatedAt}
}

type memberInviteRequest struct {
	Email       string `json:"email" oas:"required"`
	DisplayName string `json:"displayName,omitempty"`
	Role        string `json:"role,omitempty" oas:"enum=ADMIN|MEMBER"`
}

type memberRoleRequest struct {
	Role string `json:"role" oas:"required,enum=ADMIN|MEMBER" description:"The member's new role. The caller must hold every power of the role given and of the role taken away, in TEST and in LIVE; OWNER is not a member role."`
}

type memberAcceptRequest struct {
	Token         string `json:"token" oas:"required" description:"The invite token shown once in the invite answer: valid 7 days, accepted once, by a session whose verified email is the invited one."`
	SignerAddress string `json:"signerAddress" oas:"required,pattern=^0x[0-9a-fA-F]{40}$"`
	DisplayName   string `json:"displayName,omitempty"`
}

type memberResponse struct {
	ID            string     `json:"id" oas:"required"`
	Email         string     `json:"email" oas:"required"`
	DisplayName   *string    `json:"displayName" oas:"required"`
	Role          string     `json:"role" oas:"required,enum=ADMIN|MEMBER"`
	Status        string     `json:"status" oas:"required,enum=PENDING|ACTIVE|REVOKED"`
	SignerAddress *string    `json:"signerAddress" oas:"required"`
	PrivyUserID   *string    `json:"privyUserId" oas:"required"`
	CreatedAt     time.Time  `json:"createdAt" oas:"required"`
	AcceptedAt    *time.Time `json:"acceptedAt" oas:"required"`
}

type memberInviteResponse struct {
	memberResponse
	InviteToken string `json:"inviteToken" oas:"required,nullable" description:"shown once: null when an idempotent retry replays this response"`
}

type memberListResponse struct {
	Members []memberResponse `json:"members" oas:"required"`
	Total   int              `json:"total" oas:"required"`
}

type memberRevokeResponse struct {
	ID                    string   `json:"id" oas:"required"`
	Status                string   `json:"status" oas:"required,enum=REVOKED"`
	StillOwnerOfWalletIDs []string `json:"stillOwnerOfWalletIds" oas:"required" description:"The wallets of the caller's environment whose Safe still has the member's signer as an owner: revoking access does not change a Safe's owners on chain."`
}

func toMember(m tenant.Member) memberResponse {
	return memberResponse{
		ID: m.ID, Email: m.Email, DisplayName: strPtr(m.DisplayName), Role: string(m.Role),
		Status: string(m.Status), SignerAddress: strPtr(m.SignerAddress), PrivyUserID: strPtr(m.IdentityUserID),
		CreatedAt: m.CreatedAt, AcceptedAt: m.AcceptedAt,
	}
}

type apiKeyCreateRequest struct {
	Name        string    `json:"name" oas:"required,maxLength=200"`
	Environment string    `json:"environment,omitempty" oas:"enum=test|live"`
	Scopes      *[]string `json:"scopes,omitempty"`
	ExpiresAt   string    `json:"expiresAt,omitempty" oas:"format=date-time"`
}

type apiKeyResponse struct {
	ID          string                `json:"id" oas:"required"`
	Name        string                `json:"name" oas:"required"`
	PubID       string                `json:"pubId" oas:"required"`
	Environment string                `json:"environment" oas:"required,enum=TEST|LIVE"`
	Scopes      []string              `json:"scopes" oas:"required"`
	Status      string                `json:"status" oas:"required,enum=ACTIVE|EXPIRED|REVOKED"`
	ExpiresAt   *time.Time            `json:"expiresAt" oas:"required"`
	RevokedAt   *time.Time            `json:"revokedAt" oas:"required"`
	CreatedAt   time.Time             `json:"createdAt" oas:"required"`
	CreatedBy   apiKeyCreatorResponse `json:"createdBy" oas:"required"`
	AgentID     *string               `json:"agentId" oas:"required,nullable" description:"the agent whose key this is (its principal); null for a tenant key"`
}

// apiKeyCreatorResponse says who minted a key; every field is null for keys minted before
// creators were recorded.
type apiKeyCreatorResponse struct {
	UserID   *string `json:"userId" oas:"required,nullable" description:"the identity-provider user whose session minted the key"`
	MemberID *string `json:"memberId" oas:"required,nullable" description:"that user's member id (null for the tenant owner); revoking the member revokes the key"`
	APIKeyID *string `json:"apiKeyId" oas:"required,nullable" description:"the key that minted this key"`
}

type apiKeyCreateResponse struct {
	apiKeyResponse
	Key string `json:"key" oas:"required,nullable" description:"the plaintext key, shown once: null when an idempotent retry replays this response"`
}

type apiKeyListResponse struct {
	APIKeys []apiKeyResponse `json:"apiKeys" oas:"required"`
	Total   int              `json:"total" oas:"required"`
}

func toAPIKey(k tenant.APIKey, now time.Time) apiKeyResponse {
	scopes := make([]string, len(k.Scopes))
	for i, s := range k.Scopes {
		scopes[i] = string(s)
	}
	status := "ACTIVE"
	switch {
	case k.RevokedAt != nil:
		status = "REVOKED"
	case !k.Usable(now):
		status = "EXPIRED"
	}
	return apiKeyResponse{
		ID: k.ID, Name: k.Name, PubID: k.PubID, Environment: string(k.Environment), Scopes: scopes,
		Status: status, ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt, CreatedAt: k.CreatedAt,
		CreatedBy: apiKeyCreatorResponse{
			UserID: strPtr(k.CreatedBy.UserID), MemberID: strPtr(k.CreatedBy.MemberID), APIKeyID: strPtr(k.CreatedBy.KeyID),
		},
		AgentID: strPtr(k.AgentID),
	}
}
