package tenant

import (
	"testing"

	"corridor/core"
	"corridor/core/auth"
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
