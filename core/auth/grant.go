package auth

import (
	"slices"

	"github.com/corridorhq/corridor/core"
)

// AgentForbiddenScopes are the scopes an agent key can never hold, nor cause anyone to hold
// (docs/decisions/tenancy.md). docs/api.md Authentication 6 names the first four; members:manage and twofactor:manage join
// them because each lets a credential regain the others: an invite of an ADMIN yields a session
// that mints any key, and switching two-factor off removes the approval an agent cannot give
// (docs/decisions/README.md, "One grant rule").
var AgentForbiddenScopes = []Scope{
	ScopeAgentsManage, ScopeKeysManage, ScopePoliciesWrite, ScopeTreasuryWrite,
	ScopeMembersManage, ScopeTwofactorManage,
}

// AgentForbidden reports whether s is one of AgentForbiddenScopes.
func AgentForbidden(s Scope) bool {
	for _, f := range AgentForbiddenScopes {
		if s == f {
			return true
		}
	}
	return false
}

// StripAgentForbidden is what an agent may hold of scopes: the forbidden ones dropped, and "*"
// standing for every other scope. The result is normalized.
func StripAgentForbidden(scopes []Scope) []Scope {
	var out []Scope
	for _, s := range expand(scopes) {
		if !AgentForbidden(s) {
			out = append(out, s)
		}
	}
	return Normalize(out)
}

// Holding is what a credential may do, per environment: a key holds scopes in its own
// environment only; a session holds its role's scopes in both.
type Holding map[core.Environment][]Scope

// Holds reports whether h holds s in env, "*" holding every scope.
func (h Holding) Holds(env core.Environment, s Scope) bool {
	for _, held := range h[env] {
		if held == ScopeRoot || held == s {
			return true
		}
	}
	return false
}

// GrantKind names what a grant creates, for the message of a refusal.
type GrantKind string

const (
	GrantKey      GrantKind = "API key"
	GrantAgentKey GrantKind = "agent key"
	GrantMember   GrantKind = "member role"
	GrantAgent    GrantKind = "agent"
)

// Grant is a power being created: the scopes a new principal or credential will hold, per
// environment, and whether it will act as an agent.
type Grant struct {
	Kind    GrantKind
	Scopes  Holding
	ToAgent bool
}

// AuthorizeGrant is the one rule every route that creates a principal or a power goes through
// (docs/decisions/tenancy.md): minting a key or an agent key, inviting a member, creating an agent. Accepting an
// invite grants nothing new: the role was checked against its inviter when the invite was made,
// and acceptance is bound to the invitee (tenant.Member.CheckInvitee). The grantor must hold every scope it grants, in every environment it grants it in (held
// is the grantor's Holding); an agent grantor, or a grant to an agent, may never carry a scope of
// AgentForbiddenScopes. A grant of "*" is a grant of every scope. A refusal is
// INSUFFICIENT_SCOPE naming the first scope the grantor lacks.
func AuthorizeGrant(grantor Principal, held Holding, g Grant) error {
	if grantor.AgentID != "" {
		switch g.Kind {
		case GrantAgent:
			return refuse(g, grantor.Environment, ScopeAgentsManage, "an agent never creates an agent")
		case GrantMember:
			return refuse(g, grantor.Environment, ScopeMembersManage, "an agent never invites a member")
		}
	}
	agentSide := grantor.AgentID != "" || g.ToAgent
	for _, env := range []core.Environment{core.EnvTest, core.EnvLive} {
		// A root grant needs a root holder; it is named as such in the refusal.
		if !agentSide && slices.Contains(g.Scopes[env], ScopeRoot) && !held.Holds(env, ScopeRoot) {
			return refuse(g, env, ScopeRoot, "this credential is not root in "+string(env)+", so it cannot grant *")
		}
		for _, s := range expand(g.Scopes[env]) {
			if agentSide && AgentForbidden(s) {
				return refuse(g, env, s, "an agent can never hold, or cause anyone to hold, "+string(s))
			}
			if len(held[env]) == 0 {
				return refuse(g, env, s, "this credential holds nothing in "+string(env)+
					" (a key acts in its own environment only), so it cannot grant a power there: use the owner's session or a LIVE key")
			}
			if !held.Holds(env, s) {
				return refuse(g, env, s, "this credential does not hold "+string(s)+" in "+string(env)+", so it cannot grant it")
			}
		}
	}
	return nil
}

// expand turns a set with "*" into every scope it stands for.
func expand(scopes []Scope) []Scope {
	for _, s := range scopes {
		if s == ScopeRoot {
			return AllScopes[:len(AllScopes)-1]
		}
	}
	return scopes
}

func refuse(g Grant, env core.Environment, s Scope, why string) error {
	return (&core.Error{Code: core.CodeInsufficientScope, Message: "this " + string(g.Kind) + " cannot be granted: " + why}).
		WithDetails(map[string]any{"required": string(s), "missing": []string{string(s)}, "environment": string(env), "grant": string(g.Kind)})
}

// AuthorizeRevoke is the grant rule read backwards, for every route that removes a power:
// revoking a key or a member. The actor must hold every scope the target holds, in every
// environment the target holds it in (target is the target's Holding), so a credential narrower
// than its target cannot take it down: a TEST key holding only members:manage revokes no ADMIN,
// whose role acts in LIVE too. A refusal is INSUFFICIENT_SCOPE naming the first scope lacking.
func AuthorizeRevoke(held Holding, kind GrantKind, target Holding) error {
	for _, env := range []core.Environment{core.EnvTest, core.EnvLive} {
		if slices.Contains(target[env], ScopeRoot) && !held.Holds(env, ScopeRoot) {
			return refuseRevoke(kind, env, ScopeRoot, "this credential is not root in "+string(env)+", and the "+string(kind)+" is")
		}
		for _, s := range expand(target[env]) {
			if !held.Holds(env, s) {
				return refuseRevoke(kind, env, s, "the "+string(kind)+" holds "+string(s)+" in "+string(env)+", and this credential does not")
			}
		}
	}
	return nil
}

func refuseRevoke(kind GrantKind, env core.Environment, s Scope, why string) error {
	return (&core.Error{Code: core.CodeInsufficientScope, Message: "this " + string(kind) + " cannot be revoked by this credential: " + why}).
		WithDetails(map[string]any{"required": string(s), "missing": []string{string(s)}, "environment": string(env), "revoke": string(kind)})
}
