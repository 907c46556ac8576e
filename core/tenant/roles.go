package tenant

import (
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
)

// RoleOwner is the tenant creator's role. It is never stored on a member row and cannot be
// invited: a tenant has exactly one owner, tenants.owner_user_id.
const RoleOwner Role = "OWNER"

// Scope classes of the role matrix (docs/decisions/README.md, "Member roles").
var (
	// operateScopes are the everyday non-admin actions: create a wallet or a handle, fund it
	// from the TEST faucet, propose, sign and cancel a Safe payment (the wallet's owners'
	// signatures stay the on-chain authority), contacts and invoice drafts, policy dry runs.
	operateScopes = []auth.Scope{
		auth.ScopeWalletsWrite, auth.ScopeWalletsFund, auth.ScopePaymentsCreate,
		auth.ScopeContactsWrite, auth.ScopeInvoicesWrite, auth.ScopePoliciesEvaluate,
	}
	// adminOnlyScopes move money without further signatures, change what the tenant allows
	// or who it is, and mint or revoke credentials.
	adminOnlyScopes = []auth.Scope{
		auth.ScopePaymentsExecute, auth.ScopeRampsWrite, auth.ScopeTreasuryWrite,
		auth.ScopeInvoicesPay, auth.ScopeInvoicesRelease, auth.ScopeCardsIssue, auth.ScopeCardsManage,
		auth.ScopePoliciesWrite, auth.ScopeIdentityWrite, auth.ScopeAgentsManage, auth.ScopeTwofactorManage,
	}
)

// RoleScopes is what a session of role may do in env. OWNER holds "*"; ADMIN holds every
// scope except members:manage (people are the owner's call) and, in LIVE, keys:manage (a LIVE
// key is a long-lived credential that moves real money); MEMBER holds every read plus the
// operate class. An unknown role holds nothing.
func RoleScopes(role Role, env core.Environment) []auth.Scope {
	switch role {
	case RoleOwner:
		return []auth.Scope{auth.ScopeRoot}
	case RoleAdmin:
		scopes := append(append(auth.DefaultScopes(), operateScopes...), adminOnlyScopes...)
		if env != core.EnvLive {
			scopes = append(scopes, auth.ScopeKeysManage)
		}
		return auth.Normalize(scopes)
	case RoleMember:
		return auth.Normalize(append(auth.DefaultScopes(), operateScopes...))
	}
	return nil
}

// HoldingOf is what a principal holds for the grant rule (auth.AuthorizeGrant). A session holds
// its role's scopes in each environment, since a role is tenant-wide. A key holds its scopes in
// its own environment; a LIVE key's scopes also count in TEST, because a credential that moves
// real money may configure the sandbox, while a TEST key never counts in LIVE (a leaked sandbox
// key must not become a LIVE power). An agent key holds its scopes less the forbidden set,
// whatever its row says (keys minted before the set grew).
func HoldingOf(p auth.Principal) auth.Holding {
	if p.Kind == auth.KindSession {
		if p.TenantID == "" {
			return auth.Holding{}
		}
		return RoleGrant(Role(p.Role))
	}
	scopes := p.Scopes
	if p.AgentID != "" {
		scopes = auth.StripAgentForbidden(scopes)
	}
	h := auth.Holding{p.Environment: scopes}
	if p.Environment == core.EnvLive {
		h[core.EnvTest] = scopes
	}
	return h
}

// RoleGrant is what giving a member role grants: the role's scopes in each environment.
func RoleGrant(role Role) auth.Holding {
	return auth.Holding{
		core.EnvTest: RoleScopes(role, core.EnvTest),
		core.EnvLive: RoleScopes(role, core.EnvLive),
	}
}
