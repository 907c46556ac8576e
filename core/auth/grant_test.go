package auth

import (
	"errors"
	"testing"

	"github.com/corridorhq/corridor/core"
)

func TestAuthorizeGrant(t *testing.T) {
	test, live := core.EnvTest, core.EnvLive
	key := Principal{Kind: KindAPIKey, TenantID: "ten_1", Environment: test}
	agentKey := Principal{Kind: KindAPIKey, TenantID: "ten_1", Environment: test, AgentID: "agt_1"}
	root := Holding{test: {ScopeRoot}}
	rootBoth := Holding{test: {ScopeRoot}, live: {ScopeRoot}}
	narrow := Holding{test: {ScopeMembersManage, ScopeWalletsRead}}
	cases := []struct {
		name    string
		grantor Principal
		held    Holding
		grant   Grant
		refused Scope // "" when the grant is allowed
	}{
		{"root key grants a narrow key", key, root, Grant{Kind: GrantKey, Scopes: Holding{test: {ScopePaymentsCreate}}}, ""},
		{"root key grants *", key, root, Grant{Kind: GrantKey, Scopes: Holding{test: {ScopeRoot}}}, ""},
		{"narrow key cannot grant a scope it lacks", key, narrow, Grant{Kind: GrantKey, Scopes: Holding{test: {ScopeWalletsRead, ScopeKeysManage}}}, ScopeKeysManage},
		{"narrow key cannot grant *", key, narrow, Grant{Kind: GrantKey, Scopes: Holding{test: {ScopeRoot}}}, ScopeRoot},
		{"a TEST key cannot grant in LIVE", key, root, Grant{Kind: GrantMember, Scopes: Holding{test: {ScopeWalletsRead}, live: {ScopeWalletsRead}}}, ScopeWalletsRead},
		{"members:manage alone cannot invite an ADMIN", key, narrow, Grant{Kind: GrantMember, Scopes: Holding{test: {ScopeAgentsManage}}}, ScopeAgentsManage},
		{"a holder of both environments grants in both", key, rootBoth, Grant{Kind: GrantMember, Scopes: Holding{test: {ScopeRoot}, live: {ScopePaymentsExecute}}}, ""},
		{"an agent key cannot grant members:manage even when held", agentKey, root, Grant{Kind: GrantKey, Scopes: Holding{test: {ScopeMembersManage}}}, ScopeMembersManage},
		{"an agent key cannot grant twofactor:manage", agentKey, root, Grant{Kind: GrantKey, Scopes: Holding{test: {ScopeTwofactorManage}}}, ScopeTwofactorManage},
		{"an agent key may grant what it holds outside the forbidden set", agentKey, root, Grant{Kind: GrantKey, Scopes: Holding{test: {ScopePaymentsCreate}}}, ""},
		{"a grant to an agent never carries keys:manage", key, root, Grant{Kind: GrantAgentKey, ToAgent: true, Scopes: Holding{test: {ScopeKeysManage}}}, ScopeKeysManage},
		{"a grant of * to an agent is refused", key, root, Grant{Kind: GrantAgentKey, ToAgent: true, Scopes: Holding{test: {ScopeRoot}}}, ScopePoliciesWrite},
		{"a grant to an agent of allowed scopes", key, root, Grant{Kind: GrantAgentKey, ToAgent: true, Scopes: Holding{test: {ScopePaymentsCreate, ScopeCardsRead}}}, ""},
		{"an empty grant is allowed", key, Holding{}, Grant{Kind: GrantAgent}, ""},
		{"an agent never creates an agent", agentKey, root, Grant{Kind: GrantAgent}, ScopeAgentsManage},
		{"an agent never invites, even a role without scopes", agentKey, root, Grant{Kind: GrantMember}, ScopeMembersManage},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := AuthorizeGrant(tc.grantor, tc.held, tc.grant)
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *core.Error
			if !errors.As(err, &e) || e.Code != core.CodeInsufficientScope || e.Details["required"] != string(tc.refused) {
				t.Fatalf("AuthorizeGrant = %v, want INSUFFICIENT_SCOPE naming %s", err, tc.refused)
			}
		})
	}
}

func TestAgentForbiddenScopes(t *testing.T) {
	for _, s := range []Scope{ScopeAgentsManage, ScopeKeysManage, ScopePoliciesWrite, ScopeTreasuryWrite, ScopeMembersManage, ScopeTwofactorManage} {
		if !AgentForbidden(s) {
			t.Errorf("%s is not forbidden to agents", s)
		}
	}
	if AgentForbidden(ScopePaymentsCreate) || AgentForbidden(ScopePoliciesRead) {
		t.Error("an everyday scope is forbidden to agents")
	}
}

func TestAuthorizeRevoke(t *testing.T) {
	test, live := core.EnvTest, core.EnvLive
	admin := Holding{test: {ScopeAgentsManage, ScopeWalletsRead}, live: {ScopeAgentsManage, ScopeWalletsRead}}
	cases := []struct {
		name    string
		held    Holding
		target  Holding
		refused Scope
	}{
		{"an owner revokes an ADMIN", Holding{test: {ScopeRoot}, live: {ScopeRoot}}, admin, ""},
		{"a TEST key with members:manage revokes no ADMIN", Holding{test: {ScopeMembersManage}}, admin, ScopeAgentsManage},
		{"a TEST root key revokes no one acting in LIVE", Holding{test: {ScopeRoot}}, admin, ScopeAgentsManage},
		{"a narrow key revokes no root key", Holding{test: {ScopeKeysManage, ScopeWalletsRead}}, Holding{test: {ScopeRoot}}, ScopeRoot},
		{"a key revokes a key narrower than itself", Holding{test: {ScopeKeysManage, ScopeWalletsRead}}, Holding{test: {ScopeWalletsRead}}, ""},
		{"a target holding nothing is revocable by anyone", Holding{}, Holding{}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := AuthorizeRevoke(tc.held, GrantMember, tc.target)
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *core.Error
			if !errors.As(err, &e) || e.Code != core.CodeInsufficientScope || e.Details["required"] != string(tc.refused) {
				t.Fatalf("AuthorizeRevoke = %v, want INSUFFICIENT_SCOPE naming %s", err, tc.refused)
			}
		})
	}
}
