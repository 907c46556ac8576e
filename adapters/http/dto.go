package http

import (
	"time"

	"github.com/corridorhq/corridor/app/tenancy"
	"github.com/corridorhq/corridor/core/tenant"
)

// Response and request bodies. JSON names are camelCase as in docs/api.md; nullable fields are
// present and null. The oas tag feeds the OpenAPI generator (openapi.go): required, enum=A|B,
// format=…, pattern=…, maxLength=n, and nullable for a non-pointer field that some answers null;
// a description tag documents a field.

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

type healthResponse struct {
	Status string `json:"status" oas:"required,enum=ok|unavailable"`
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
