package http

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"corridor/app/finance"
	"corridor/core/auth"
	"corridor/core/recipient"
)

// identityEndpoints are the caller's identity and the service's status (DESIGN.md §6).
func (s *Server) identityEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/v1/identity", Summary: "The caller: who is authenticated, for which tenant and environment with which scopes, and its verification and credentials", Tag: "identity",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeIdentityRead},
			Responses: map[int]any{200: identityResponse{}}, Handler: s.getIdentity},
		{Method: "GET", Path: "/v1/status", Summary: "Service, database and per-environment chain health; a part that is down is reported, never a 5xx", Tag: "service",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeStatusRead},
			Responses: map[int]any{200: statusResponse{}}, Handler: s.getStatus},
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

func (s *Server) getIdentity(c *fiber.Ctx) error {
	p := principal(c)
	cred, ok, err := s.svc.Recipients.GetCredential(c.UserContext(), p)
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

type chainHealthResponse struct {
	Environment         string  `json:"environment" oas:"required,enum=TEST|LIVE"`
	Status              string  `json:"status" oas:"required,enum=ok|degraded|unavailable|not_configured"`
	ChainID             *int64  `json:"chainId" oas:"required"`
	LatestBlock         *uint64 `json:"latestBlock" oas:"required" description:"null when the node could not be read"`
	IndexedThroughBlock *uint64 `json:"indexedThroughBlock" oas:"required" description:"the last block the ledger mirror has posted; null before its first run"`
	MirrorLagBlocks     *uint64 `json:"mirrorLagBlocks" oas:"required" description:"latestBlock minus indexedThroughBlock; past 600 the environment is degraded"`
	Problem             *string `json:"problem" oas:"required"`
}

type statusResponse struct {
	Status    string                `json:"status" oas:"required,enum=ok|degraded"`
	Service   string                `json:"service" oas:"required,enum=ok"`
	Database  string                `json:"database" oas:"required,enum=ok|unavailable"`
	Chains    []chainHealthResponse `json:"chains" oas:"required"`
	CheckedAt time.Time             `json:"checkedAt" oas:"required"`
}

func (s *Server) getStatus(c *fiber.Ctx) error {
	rep, err := s.svc.Finance.Status(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	out := statusResponse{Status: rep.Status, Service: finance.HealthOK, Database: rep.Database, CheckedAt: rep.CheckedAt,
		Chains: make([]chainHealthResponse, len(rep.Chains))}
	for i, h := range rep.Chains {
		out.Chains[i] = chainHealthResponse{Environment: string(h.Environment), Status: h.Status, ChainID: h.ChainID,
			LatestBlock: h.LatestBlock, IndexedThroughBlock: h.IndexedThroughBlock, MirrorLagBlocks: h.MirrorLagBlocks,
			Problem: strPtr(h.Problem)}
	}
	return c.JSON(out)
}
