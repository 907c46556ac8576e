package api

import (
	"strings"
	"sync"
	"testing"
)

const signer = "0x52908400098527886E0F7030069857D2E4169EE7"

func TestMembers_InviteAcceptOnce(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	inv := ten.Session.Post("/v1/tenants/members", map[string]any{"email": "Ada@Example.com", "displayName": "Ada", "role": "ADMIN"}).Expect(t, 201).JSON(t)
	if inv["status"] != "PENDING" || inv["role"] != "ADMIN" || inv["email"] != "ada@example.com" || inv["inviteToken"] == "" {
		t.Fatalf("invite response: %v", inv)
	}
	token := inv["inviteToken"].(string)
	list := ten.Root.Get("/v1/tenants/members").Expect(t, 200)
	if string(list.Body) == "" || contains(list.Body, token) {
		t.Fatal("member list leaks the invite token")
	}

	anon := e.Client(t)
	m := anon.Post("/v1/tenants/members/accept", map[string]any{"token": token, "signerAddress": "0x123"}).ExpectError(t, 400, "VALIDATION_FAILED")
	if harnessField(m, "signerAddress") == "" {
		t.Fatalf("bad signer not named: %v", m)
	}
	anon.Post("/v1/tenants/members/accept", map[string]any{"token": token, "signerAddress": "0x52908400098527886e0F7030069857D2E4169EE7"}).ExpectError(t, 400, "VALIDATION_FAILED") // bad checksum

	// The token alone no longer accepts: the invitee's own session must come with it.
	anon.Post("/v1/tenants/members/accept", map[string]any{"token": token, "signerAddress": signer}).ExpectError(t, 401, "UNAUTHENTICATED")
	_, mallory := e.SessionFor(t, "mallory@example.com")
	mallory.Post("/v1/tenants/members/accept", map[string]any{"token": token, "signerAddress": signer}).ExpectError(t, 403, "INVITE_EMAIL_MISMATCH")
	ten.Root.Post("/v1/tenants/members/accept", map[string]any{"token": token, "signerAddress": signer}).ExpectError(t, 401, "UNAUTHENTICATED")
	if got := ten.Root.Get("/v1/tenants/members").JSON(t)["members"].([]any)[0].(map[string]any)["status"]; got != "PENDING" {
		t.Fatalf("a refused accept changed the member: %v", got)
	}

	_, ada := e.SessionFor(t, "ADA@example.COM") // the email compares case-insensitively
	accepted := ada.Post("/v1/tenants/members/accept", map[string]any{"token": token, "signerAddress": signer}).Expect(t, 200).JSON(t)
	if accepted["status"] != "ACTIVE" || accepted["signerAddress"] != signer || accepted["acceptedAt"] == nil {
		t.Fatalf("accept response: %v", accepted)
	}
	ada.Post("/v1/tenants/members/accept", map[string]any{"token": token, "signerAddress": signer}).ExpectError(t, 409, "INVALID_STATE")
	ada.Post("/v1/tenants/members/accept", map[string]any{"token": "inv_unknown", "signerAddress": signer}).ExpectError(t, 404, "INVITE_NOT_FOUND")
}

func TestMembers_ConcurrentAcceptsActivateOnce(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	token := ten.Session.Post("/v1/tenants/members", map[string]any{"email": "race@example.com"}).Expect(t, 201).JSON(t)["inviteToken"].(string)
	_, racer := e.SessionFor(t, "race@example.com")
	var wg sync.WaitGroup
	statuses := make(chan int, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- racer.Post("/v1/tenants/members/accept", map[string]any{"token": token, "signerAddress": signer}).Status
		}()
	}
	wg.Wait()
	close(statuses)
	ok := 0
	for s := range statuses {
		switch s {
		case 200:
			ok++
		case 409:
		default:
			t.Fatalf("unexpected status %d", s)
		}
	}
	if ok != 1 {
		t.Fatalf("%d accepts succeeded, want exactly 1", ok)
	}
}

func TestMembers_AcceptWithSessionLinksTheUser(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	token := ten.Session.Post("/v1/tenants/members", map[string]any{"email": "bob@example.com"}).Expect(t, 201).JSON(t)["inviteToken"].(string)
	userID, bob := e.SessionFor(t, "bob@example.com")
	bob.Get("/v1/tenants/current").ExpectError(t, 403, "TENANT_REQUIRED")
	m := bob.Post("/v1/tenants/members/accept", map[string]any{"token": token, "signerAddress": signer, "displayName": "Bob"}).Expect(t, 200).JSON(t)
	if m["privyUserId"] != userID || m["displayName"] != "Bob" {
		t.Fatalf("accept with session: %v", m)
	}
	cur := bob.Get("/v1/tenants/current").Expect(t, 200).JSON(t)
	if cur["id"] != ten.ID || cur["role"] != "MEMBER" {
		t.Fatalf("member's current tenant: %v", cur)
	}
}

func TestMembers_RevokeIsIdempotentAndTenantScoped(t *testing.T) {
	t.Parallel()
	e := env()
	ten, other := e.NewTenant(t), e.NewTenant(t)
	inv := ten.Session.Post("/v1/tenants/members", map[string]any{"email": "c@example.com"}).Expect(t, 201).JSON(t)
	id := inv["id"].(string)
	other.Root.Post("/v1/tenants/members/"+id+"/revoke", nil).ExpectError(t, 404, "MEMBER_NOT_FOUND")
	// The member's role acts in TEST and LIVE, so the owner's session revokes it (a TEST key
	// holds nothing in LIVE: TestRevoke_MemberNeedsTheRolesPower).
	r := ten.Session.Post("/v1/tenants/members/"+id+"/revoke", nil).Expect(t, 200).JSON(t)
	if r["status"] != "REVOKED" || r["stillOwnerOfWalletIds"] == nil || len(r["stillOwnerOfWalletIds"].([]any)) != 0 {
		t.Fatalf("revoke response: %v", r)
	}
	ten.Session.Post("/v1/tenants/members/"+id+"/revoke", nil).Expect(t, 200)
	e.AcceptInvite(t, "c@example.com", inv["inviteToken"].(string), map[string]any{"signerAddress": signer}).ExpectError(t, 409, "INVALID_STATE")
}

func TestMembers_InviteValidation(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	m := ten.Root.Post("/v1/tenants/members", map[string]any{"email": "nope", "role": "OWNER"}).ExpectError(t, 400, "VALIDATION_FAILED")
	if harnessField(m, "email") == "" || harnessField(m, "role") == "" {
		t.Fatalf("both bad fields must be named: %v", m["details"])
	}
	if total := ten.Root.Get("/v1/tenants/members").JSON(t)["total"].(float64); total != 0 {
		t.Fatalf("refused invite created a member")
	}
}

func contains(body []byte, s string) bool { return strings.Contains(string(body), s) }
