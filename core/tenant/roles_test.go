package tenant

import (
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
)

func holds(scopes []auth.Scope, s auth.Scope) bool {
	p := auth.Principal{Kind: auth.KindSession, Scopes: scopes}
	return p.Has(s)
}

func TestRoleScopes_PartitionEveryScope(t *testing.T) {
	classified := map[auth.Scope]int{auth.ScopeKeysManage: 1, auth.ScopeMembersManage: 1}
	for _, s := range append(append(auth.DefaultScopes(), operateScopes...), adminOnlyScopes...) {
		classified[s]++
	}
	for _, s := range auth.AllScopes {
		if s != auth.ScopeRoot && classified[s] != 1 {
			t.Errorf("scope %s is in %d classes of the role matrix, want exactly 1", s, classified[s])
		}
	}
}

func TestRoleScopes_Matrix(t *testing.T) {
	for _, env := range []core.Environment{core.EnvTest, core.EnvLive} {
		owner, admin, member := RoleScopes(RoleOwner, env), RoleScopes(RoleAdmin, env), RoleScopes(RoleMember, env)
		for _, s := range auth.AllScopes {
			if !holds(owner, s) {
				t.Errorf("%s OWNER lacks %s", env, s)
			}
		}
		if holds(admin, auth.ScopeMembersManage) || holds(admin, auth.ScopeRoot) || !holds(admin, auth.ScopePaymentsExecute) {
			t.Errorf("%s ADMIN scopes wrong: %v", env, admin)
		}
		if holds(admin, auth.ScopeKeysManage) != (env == core.EnvTest) {
			t.Errorf("%s ADMIN keys:manage = %v", env, holds(admin, auth.ScopeKeysManage))
		}
		for _, s := range adminOnlyScopes {
			if holds(member, s) {
				t.Errorf("%s MEMBER holds admin scope %s", env, s)
			}
		}
		if !holds(member, auth.ScopePaymentsCreate) || !holds(member, auth.ScopeMembersRead) || holds(member, auth.ScopeKeysManage) {
			t.Errorf("%s MEMBER scopes wrong: %v", env, member)
		}
		if RoleScopes("NOBODY", env) != nil {
			t.Error("an unknown role holds scopes")
		}
	}
}

func TestHoldingOf(t *testing.T) {
	test, live := core.EnvTest, core.EnvLive
	admin := auth.Principal{Kind: auth.KindSession, TenantID: "ten_1", Environment: test, Role: string(RoleAdmin)}
	h := HoldingOf(admin)
	if !h.Holds(live, auth.ScopePaymentsExecute) || h.Holds(live, auth.ScopeKeysManage) || !h.Holds(test, auth.ScopeKeysManage) {
		t.Fatalf("an ADMIN session holds %v", h)
	}
	if len(HoldingOf(auth.Principal{Kind: auth.KindSession, Role: string(RoleOwner)})) != 0 {
		t.Fatal("a session without a tenant holds something")
	}
	testKey := auth.Principal{Kind: auth.KindAPIKey, TenantID: "ten_1", Environment: test, Scopes: []auth.Scope{auth.ScopeRoot}}
	if h := HoldingOf(testKey); !h.Holds(test, auth.ScopeMembersManage) || h.Holds(live, auth.ScopeWalletsRead) {
		t.Fatalf("a TEST root key holds %v", h)
	}
	liveKey := testKey
	liveKey.Environment = live
	if h := HoldingOf(liveKey); !h.Holds(test, auth.ScopeMembersManage) || !h.Holds(live, auth.ScopeMembersManage) {
		t.Fatalf("a LIVE root key holds %v", h)
	}
	agentKey := testKey
	agentKey.AgentID = "agt_1"
	for _, s := range auth.AgentForbiddenScopes {
		if HoldingOf(agentKey).Holds(test, s) {
			t.Errorf("an agent key minted with * holds %s", s)
		}
	}
	if !HoldingOf(agentKey).Holds(test, auth.ScopePaymentsCreate) {
		t.Error("an agent key lost an everyday scope")
	}
	// Inviting an ADMIN grants LIVE powers: a TEST root key cannot, a LIVE root key and the owner can.
	invite := auth.Grant{Kind: auth.GrantMember, Scopes: RoleGrant(RoleAdmin)}
	if auth.AuthorizeGrant(testKey, HoldingOf(testKey), invite) == nil {
		t.Error("a TEST key invited an ADMIN")
	}
	if err := auth.AuthorizeGrant(liveKey, HoldingOf(liveKey), invite); err != nil {
		t.Errorf("a LIVE root key could not invite an ADMIN: %v", err)
	}
	owner := auth.Principal{Kind: auth.KindSession, TenantID: "ten_1", Role: string(RoleOwner)}
	if err := auth.AuthorizeGrant(owner, HoldingOf(owner), invite); err != nil {
		t.Errorf("the owner could not invite an ADMIN: %v", err)
	}
	// An ADMIN holds what an ADMIN holds, so the grant rule allows it; the route's own
	// members:manage, which ADMIN lacks, is what stops an ADMIN inviting.
	if err := auth.AuthorizeGrant(admin, HoldingOf(admin), invite); err != nil {
		t.Errorf("the grant rule refused an ADMIN granting ADMIN: %v", err)
	}
}
