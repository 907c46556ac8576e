package api

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// joinedMember invites email as role through the owner's session and accepts it as the invitee:
// the member's id and the invitee's session.
func joinedMember(t *testing.T, ten *harness.Tenant, email, role string) (string, *harness.Client) {
	t.Helper()
	inv := ten.Session.Post("/v1/tenants/members", map[string]any{"email": email, "role": role}).Expect(t, 201).JSON(t)
	_, c := env().SessionFor(t, email)
	c.Post("/v1/tenants/members/accept", map[string]any{"token": inv["inviteToken"], "signerAddress": signer}).Expect(t, 200)
	return inv["id"].(string), c
}

// memberRole is a member's role as the list reports it.
func memberRole(t *testing.T, ten *harness.Tenant, id string) string {
	t.Helper()
	for _, m := range ten.Session.Get("/v1/tenants/members").Expect(t, 200).JSON(t)["members"].([]any) {
		if m := m.(map[string]any); m["id"] == id {
			return m["role"].(string)
		}
	}
	return ""
}

// TestMembers_ChangeRole: the owner promotes a MEMBER to ADMIN and back; the member's session
// holds the new role's powers on its next request; each change is a member.role_changed event
// naming who made it.
func TestMembers_ChangeRole(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id, member := joinedMember(t, ten, "role-up@example.com", "MEMBER")
	member.Get("/v1/api-keys").ExpectError(t, 403, "INSUFFICIENT_SCOPE")

	got := ten.Session.Do("PATCH", "/v1/tenants/members/"+id, map[string]any{"role": "ADMIN"}).Expect(t, 200).JSON(t)
	if got["id"] != id || got["role"] != "ADMIN" || got["status"] != "ACTIVE" {
		t.Fatalf("the change answered %v", got)
	}
	member.Get("/v1/api-keys").Expect(t, 200)
	events := ten.Session.Get("/v1/events?type=member.role_changed").Expect(t, 200).JSON(t)["events"].([]any)
	if len(events) != 1 {
		t.Fatalf("%d member.role_changed events, want 1", len(events))
	}
	data := events[0].(map[string]any)["data"].(map[string]any)
	if data["id"] != id || data["role"] != "ADMIN" || data["previousRole"] != "MEMBER" || data["changedBy"] != ten.UserID {
		t.Fatalf("the event's data: %v", data)
	}
	ten.Session.Do("PATCH", "/v1/tenants/members/"+id, map[string]any{"role": "member"}).Expect(t, 200)
	if memberRole(t, ten, id) != "MEMBER" {
		t.Fatal("the demotion did not change the role")
	}
	member.Get("/v1/api-keys").ExpectError(t, 403, "INSUFFICIENT_SCOPE")
}

// TestMembers_ChangeRoleFollowsTheGrantRule: a role change needs both roles' powers in TEST and
// LIVE, so a MEMBER and a TEST key holding members:manage are refused; a bad role, OWNER, a
// revoked member and another tenant's member change nothing; the owner has no member row, so
// ownership is never taken by a role change.
func TestMembers_ChangeRoleFollowsTheGrantRule(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	id, member := joinedMember(t, ten, "role-rule@example.com", "MEMBER")
	member.Do("PATCH", "/v1/tenants/members/"+id, map[string]any{"role": "ADMIN"}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	key := ten.Session.Post("/v1/api-keys", map[string]any{"name": "members", "environment": "test", "scopes": []string{"members:manage"}}).Expect(t, 201).JSON(t)["key"].(string)
	env().Client(t).WithKey(key).Do("PATCH", "/v1/tenants/members/"+id, map[string]any{"role": "ADMIN"}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	for _, body := range []map[string]any{{"role": "OWNER"}, {"role": "ROOT"}, {}, {"role": "ADMIN", "scopes": []string{"*"}}} {
		ten.Session.Do("PATCH", "/v1/tenants/members/"+id, body).ExpectError(t, 400, "VALIDATION_FAILED")
	}
	if memberRole(t, ten, id) != "MEMBER" {
		t.Fatal("a refused change changed the role")
	}

	theirs, _ := joinedMember(t, other, "role-theirs@example.com", "MEMBER")
	ten.Session.Do("PATCH", "/v1/tenants/members/"+theirs, map[string]any{"role": "ADMIN"}).ExpectError(t, 404, "MEMBER_NOT_FOUND")
	if memberRole(t, other, theirs) != "MEMBER" {
		t.Fatal("another tenant's member changed")
	}
	ten.Session.Do("PATCH", "/v1/tenants/members/"+ten.UserID, map[string]any{"role": "MEMBER"}).ExpectError(t, 404, "MEMBER_NOT_FOUND")
	if role := ten.Session.Get("/v1/tenants/current").Expect(t, 200).JSON(t)["role"]; role != "OWNER" {
		t.Fatalf("the owner is %v", role)
	}

	ten.Session.Post("/v1/tenants/members/"+id+"/revoke", nil).Expect(t, 200)
	ten.Session.Do("PATCH", "/v1/tenants/members/"+id, map[string]any{"role": "ADMIN"}).ExpectError(t, 409, "INVALID_STATE")
	if n := len(ten.Session.Get("/v1/events?type=member.role_changed").Expect(t, 200).JSON(t)["events"].([]any)); n != 0 {
		t.Fatalf("refused changes recorded %d events", n)
	}
}
