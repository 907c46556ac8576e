package http

import (
	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/recipient"
)

// identityEndpoints is the caller's identity (docs/architecture.md): who it is, and its
// BUSINESS_IDENTITY credential, which the recipients capability keeps.
func (h *recipientsHandlers) identityEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/v1/identity", Summary: "The caller: who is authenticated, for which tenant and environment with which scopes, and its verification and credentials", Tag: "identity",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeIdentityRead},
			Responses: map[int]any{200: identityResponse{}}, Handler: h.getIdentity},
	}
}

type identityPrincipal struct {
	Type        string   `json:"type" oas:"required,enum=API_KEY|AGENT_KEY|SESSION"`
	TenantID    string   `json:"tenantId" oas:"required"`
	Environment string   `json:"environment" oas:"required,enum=TEST|LIVE"`
	Scopes      []string `json:"scopes" oas:"required"`
	KeyID       *string  `json:"keyId" oas:"required" description:"the API key's id; null for a session"`
	AgentID     *string  `json:"agentId" oas:"required" description:"set when the key is an agent's"`
	UserID      *string  `json:"userId" oas:"required" description:"the identity-provider user of a session; null for a key"`
	Email       *string  `json:"email" oas:"required"`
	Role        *string  `json:"role" oas:"required" description:"the session user's role in the tenant (OWNER, ADMIN or MEMBER)"`
	MemberID    *string  `json:"memberId" oas:"required"`
}

type identityVerification struct {
	Status                 string  `json:"status" oas:"required,enum=VERIFIED|UNVERIFIED"`
	BusinessIdentityStatus *string `json:"businessIdentityStatus" oas:"required" description:"ACTIVE, EXPIRED, REVOKED or SUSPENDED; null when none"`
}

type identityResponse struct {
	Principal    identityPrincipal    `json:"principal" oas:"required"`
	Verification identityVerification `json:"verification" oas:"required" description:"VERIFIED when the tenant's BUSINESS_IDENTITY credential is ACTIVE"`
	Credentials  []credentialResponse `json:"credentials" oas:"required"`
}

func (h *recipientsHandlers) getIdentity(c *fiber.Ctx) error {
	p := principal(c)
	cred, ok, err := h.svc.GetCredential(c.UserContext(), p)
	if err != nil {
		return err
	}
	out := identityResponse{Principal: toIdentityPrincipal(p), Verification: identityVerification{Status: "UNVERIFIED"},
		Credentials: []credentialResponse{toCredential(cred, ok)}}
	if ok {
		st := string(cred.Status)
		out.Verification.BusinessIdentityStatus = &st
		if cred.Status == recipient.CredentialActive {
			out.Verification.Status = "VERIFIED"
		}
	}
	return c.JSON(out)
}

func toIdentityPrincipal(p auth.Principal) identityPrincipal {
	out := identityPrincipal{Type: "API_KEY", TenantID: p.TenantID, Environment: string(p.Environment), Scopes: make([]string, len(p.Scopes)),
		KeyID: strPtr(p.KeyID), AgentID: strPtr(p.AgentID), UserID: strPtr(p.UserID),
		Email: strPtr(p.Email), Role: strPtr(p.Role), MemberID: strPtr(p.MemberID)}
	switch {
	case p.Kind == auth.KindSession:
		out.Type = "SESSION"
	case p.AgentID != "":
		out.Type = "AGENT_KEY"
	}
	for i, sc := range p.Scopes {
		out.Scopes[i] = string(sc)
	}
	return out
}
