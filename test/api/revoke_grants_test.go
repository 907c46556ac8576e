package api

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// adminMemberID is the member id of the tenant's ADMIN (roleSessions).
func adminMemberID(t *testing.T, ten *harness.Tenant) string {
	t.Helper()
	for _, m := range ten.Root.Get("/v1/tenants/members").Expect(t, 200).JSON(t)["members"].([]any) {
		if m.(map[string]any)["role"] == "ADMIN" {
			return m.(map[string]any)["id"].(string)
		}
	}
	t.Fatal("no ADMIN member")
	return ""
}

// TestRevoke_MemberNeedsTheRolesPower: revoking a member is the grant rule read backwards. A
// TEST key holding only members:manage (or even a TEST root key) cannot revoke an ADMIN, whose
// role acts in LIVE too: 403 naming the scope it lacks, and the ADMIN's LIVE key keeps working.
// The owner's session, which holds the role's power in both environments, revokes as before.
func TestRevoke_MemberNeedsTheRolesPower(t *testing.T) {
	t.Parallel()
	e := env()
	ten, tokens := roleSessions(t)
	adminLive := e.Client(t).WithSession(tokens["ADMIN"]).With("X-Corridor-Environment", "live")
	adminLive.Get("/v1/wallets").Expect(t, 200)

	adminID := adminMemberID(t, ten)
	narrow := e.Client(t).WithKey(e.NewKey(t, ten.Root, map[string]any{"name": "people", "scopes": []string{"members:manage", "members:read"}}))
	m := narrow.Post("/v1/tenants/members/"+adminID+"/revoke", nil).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	if d := m["details"].(map[string]any); d["required"] == nil || d["required"] == "members:manage" {
		t.Fatalf("the refusal does not name the power the key lacks: %v", d)
	}
	ten.Root.Post("/v1/tenants/members/"+adminID+"/revoke", nil).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	if got := e.Client(t).WithSession(tokens["ADMIN"]).Get("/v1/tenants/current").Expect(t, 200).JSON(t); got["role"] != "ADMIN" {
		t.Fatalf("the ADMIN lost its role after a refused revoke: %v", got)
	}
	adminLive.Get("/v1/wallets").Expect(t, 200)
	ten.Session.Post("/v1/tenants/members/"+adminID+"/revoke", nil).Expect(t, 200)
	e.Client(t).WithSession(tokens["ADMIN"]).Get("/v1/wallets").ExpectError(t, 403, "TENANT_REQUIRED")
}

// TestAgentKeys_LiveFollowTheLiveKeyRule: no session mints LIVE agent credentials: agents are
// sandbox only, so in LIVE creating an agent or minting a key for a TEST agent answers 403
// SANDBOX_ONLY for the ADMIN and the owner alike (the LIVE key rule and expiry that minting
// would then follow are the use case's, in docs/agents.md); TEST agent keys are as before.
func TestAgentKeys_LiveFollowTheLiveKeyRule(t *testing.T) {
	t.Parallel()
	e := env()
	ten, tokens := roleSessions(t)
	adminLive := e.Client(t).WithSession(tokens["ADMIN"]).With("X-Corridor-Environment", "live")
	ownerLive := e.Client(t).WithSession(ten.SessionToken).With("X-Corridor-Environment", "live")
	adminLive.Post("/v1/agents", map[string]any{"name": "live bot"}).ExpectError(t, 403, "SANDBOX_ONLY")
	ownerLive.Post("/v1/agents", map[string]any{"name": "live bot"}).ExpectError(t, 403, "SANDBOX_ONLY")
	testAgentID := ten.Session.Post("/v1/agents", map[string]any{"name": "test bot"}).Expect(t, 201).JSON(t)["id"].(string)
	for _, c := range []*harness.Client{adminLive, ownerLive} {
		if r := c.Post("/v1/agents/"+testAgentID+"/keys", map[string]any{"name": "k", "scopes": []string{"*"}}); r.Status != 403 && r.Status != 404 {
			t.Fatalf("a LIVE session minted a key for a TEST agent: %d %s", r.Status, r.Body)
		}
	}
	// TEST: the ADMIN mints as before, with no expiry unless asked.
	admin := e.Client(t).WithSession(tokens["ADMIN"])
	testAgent := admin.Post("/v1/agents", map[string]any{"name": "test bot"}).Expect(t, 201).JSON(t)["id"].(string)
	if k := admin.Post("/v1/agents/"+testAgent+"/keys", map[string]any{"name": "k", "scopes": []string{"payments:read"}}).Expect(t, 201).JSON(t); k["expiresAt"] != nil {
		t.Fatalf("a TEST agent key gained an expiry: %v", k["expiresAt"])
	}
}
