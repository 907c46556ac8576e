package auth

import (
	"time"

	"github.com/corridorhq/corridor/core"
)

// Kind says how a caller authenticated.
type Kind string

const (
	KindAPIKey  Kind = "api_key"
	KindSession Kind = "session"
)

// Principal is the authenticated caller of one request: tenant, environment and scopes.
// A session principal may have no tenant yet (only POST /v1/tenants accepts that).
type Principal struct {
	Kind        Kind
	TenantID    string // "" for a session without a tenant
	Environment core.Environment
	Scopes      []Scope
	KeyID       string // the API key's id, for API key principals
	KeyPubID    string // safe to log
	// KeyExpiresAt is the API key's own expiry (nil: none); keys it mints may not outlive it.
	KeyExpiresAt *time.Time
	UserID       string // identity-provider subject, for sessions
	Email        string // identity-provider email, for sessions
	// Role is the session user's role in the tenant (OWNER, ADMIN or MEMBER); its scopes were
	// derived from it for this environment. Empty for API keys and tenant-less sessions.
	Role string
	// MemberID is the session user's member id; empty for the owner, who is no member.
	MemberID string
	// AgentID is set when the API key is an agent's: the principal is the agent.
	AgentID string
}

// Has reports whether the principal holds scope s. Root keys and owner sessions ("*") hold
// every scope; other sessions hold what their member role grants (docs/decisions/README.md).
func (p Principal) Has(s Scope) bool {
	for _, held := range p.Scopes {
		if held == ScopeRoot || held == s {
			return true
		}
	}
	return false
}

// Require returns INSUFFICIENT_SCOPE naming the first missing scope in details.required.
func (p Principal) Require(scopes ...Scope) error {
	var missing []string
	for _, s := range scopes {
		if !p.Has(s) {
			missing = append(missing, string(s))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return (&core.Error{
		Code:    core.CodeInsufficientScope,
		Message: "this credential lacks the scope " + missing[0],
	}).WithDetails(map[string]any{"required": missing[0], "missing": missing})
}

// RequireTenant refuses a session that belongs to no tenant yet.
func (p Principal) RequireTenant() error {
	if p.TenantID == "" {
		return core.E(core.CodeTenantRequired, "this session belongs to no tenant yet: create one with POST /v1/tenants")
	}
	return nil
}

// IsRoot reports whether the principal holds "*" (root keys and owner sessions).
func (p Principal) IsRoot() bool {
	for _, s := range p.Scopes {
		if s == ScopeRoot {
			return true
		}
	}
	return false
}

// LogID identifies the principal in logs without revealing a secret.
func (p Principal) LogID() string {
	if p.Kind == KindAPIKey {
		return "key:" + p.KeyPubID
	}
	if p.UserID != "" {
		return "session:" + p.UserID
	}
	return ""
}
