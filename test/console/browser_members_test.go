package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/corridorhq/corridor/test/harness"
)

// memberStatus is a member's status through the API.
func memberStatus(t *testing.T, ten *harness.Tenant, email string) (id, status string) {
	t.Helper()
	for _, m := range ten.Session.Get("/v1/tenants/members").Expect(t, 200).JSON(t)["members"].([]any) {
		if m := m.(map[string]any); m["email"] == email {
			return m["id"].(string), m["status"].(string)
		}
	}
	return "", ""
}

// TestConsoleBrowserMembers: the owner invites a member from the members page (the invite token
// shown once), the invitee accepts it with that token, the owner changes their role with the
// row's role control and revokes them with a click;
// each step is what the API then reports.
func TestConsoleBrowserMembers(t *testing.T) {
	ten := env().NewTenant(t)
	email := strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")) + "@example.com"
	ctx := harness.Browser(t)
	base := env().BaseURL
	var token string
	run(t, ctx, "invite",
		chromedp.Navigate(base+"/console/signin"),
		chromedp.WaitVisible("#signin-form", chromedp.ByQuery),
		chromedp.SetValue("#token", ten.SessionToken, chromedp.ByQuery),
		chromedp.Click("#signin", chromedp.ByQuery),
		chromedp.WaitVisible("nav", chromedp.ByQuery),
		chromedp.Click(`a[href="/console/members"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#invite-member", chromedp.ByID),
		chromedp.SetValue("#invite-email", email, chromedp.ByID),
		chromedp.SetValue("#invite-role", "ADMIN", chromedp.ByID),
		chromedp.Click("#invite-submit", chromedp.ByID),
		chromedp.WaitVisible("#invite-token", chromedp.ByID),
		chromedp.Text("#invite-token", &token, chromedp.ByID),
	)
	id, status := memberStatus(t, ten, email)
	if status != "PENDING" || !strings.HasPrefix(strings.TrimSpace(token), "inv_") {
		t.Fatalf("after the invite: member %s %q, token %q", id, status, token)
	}
	env().AcceptInvite(t, email, strings.TrimSpace(token), map[string]any{"signerAddress": "0x0000000000000000000000000000000000000078"}).Expect(t, 200)
	var row, changed, notice string
	run(t, ctx, "change role",
		chromedp.Navigate(base+"/console/members"),
		chromedp.WaitVisible("#role-"+id, chromedp.ByID),
		chromedp.Text("#member-"+id+" .role", &row, chromedp.ByQuery),
		chromedp.SetValue("#role-"+id, "MEMBER", chromedp.ByID),
		chromedp.Click("#change-role-"+id, chromedp.ByID),
		chromedp.WaitVisible("#notice", chromedp.ByID),
		chromedp.Text("#notice", &notice, chromedp.ByID),
		chromedp.Text("#member-"+id+" .role", &changed, chromedp.ByQuery),
	)
	if row != "ADMIN" || changed != "MEMBER" || !strings.Contains(notice, "is now MEMBER") || memberRole(t, ten, id) != "MEMBER" {
		t.Fatalf("the role control: shown %q then %q (%q), the API says %q", row, changed, notice, memberRole(t, ten, id))
	}
	run(t, ctx, "revoke",
		chromedp.Navigate(base+"/console/members"),
		chromedp.WaitVisible("#revoke-"+id, chromedp.ByID),
		chromedp.Click("#revoke-"+id, chromedp.ByID),
		chromedp.WaitVisible("#notice", chromedp.ByID),
	)
	if _, status := memberStatus(t, ten, email); status != "REVOKED" {
		t.Fatalf("after the revoke: %q", status)
	}
}

// memberRole is a member's role through the API.
func memberRole(t *testing.T, ten *harness.Tenant, id string) string {
	t.Helper()
	for _, m := range ten.Session.Get("/v1/tenants/members").Expect(t, 200).JSON(t)["members"].([]any) {
		if m := m.(map[string]any); m["id"] == id {
			return m["role"].(string)
		}
	}
	return ""
}

// TestConsole_MembersFollowTheAPI: a member without members:manage sees the list but its
// forged invite changes nothing; another tenant's member cannot be revoked (404).
func TestConsole_MembersFollowTheAPI(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	inv := other.Session.Post("/v1/tenants/members", map[string]any{"email": "theirs@example.com", "role": "MEMBER"}).Expect(t, 201).JSON(t)
	theirID := inv["id"].(string)

	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	v.Get("/console/members")
	form := v.Form("/console/members", url.Values{}) // a one-time token of this session, used elsewhere
	if p := v.Post("/console/members/"+theirID+"/revoke", form, false); p.Status != http.StatusNotFound {
		t.Fatalf("revoking another tenant's member: %d", p.Status)
	}
	v.Get("/console/members")
	role := v.Form("/console/members", url.Values{"role": {"ADMIN"}})
	if p := v.Post("/console/members/"+theirID+"/role", role, false); p.Status != http.StatusNotFound {
		t.Fatalf("changing another tenant's member's role: %d", p.Status)
	}
	if _, status := memberStatus(t, other, "theirs@example.com"); status != "PENDING" || memberRole(t, other, theirID) != "MEMBER" {
		t.Fatalf("another tenant's member is %q %s", status, memberRole(t, other, theirID))
	}
	v.Get("/console/members")
	bad := v.Form("/console/members", url.Values{"email": {"not-an-email"}, "role": {"MEMBER"}})
	if p := v.Post("/console/members", bad, false); p.Status != http.StatusBadRequest && p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a bad email: %d", p.Status)
	}
	if id, _ := memberStatus(t, ten, "not-an-email"); id != "" {
		t.Fatal("a bad email was invited")
	}
}

// TestConsole_MembersFormsOnlyWithMembersManage: the members page renders its invite, role and
// revoke forms only to a role holding members:manage (the OWNER), as every page renders an
// action only when the role holds its scope; an ADMIN and a MEMBER read the list and are told
// why there is nothing to do, and a forged invite stays refused.
func TestConsole_MembersFormsOnlyWithMembersManage(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	owner := env().ConsoleVisitor(t)
	owner.SignIn(ten.SessionToken)
	if p := owner.Get("/console/members"); !strings.Contains(p.Body, `id="invite-member"`) {
		t.Fatalf("the owner has no invite form:\n%s", p.Body)
	}
	for i, role := range []string{"ADMIN", "MEMBER"} {
		email := strings.ToLower(role) + "-forms@example.com"
		inv := ten.Session.Post("/v1/tenants/members", map[string]any{"email": email, "role": role}).Expect(t, 201).JSON(t)
		_, token := env().NewUserWithEmail(t, email)
		env().Client(t).WithSession(token).Post("/v1/tenants/members/accept", map[string]any{
			"token": inv["inviteToken"], "signerAddress": "0x000000000000000000000000000000000000007" + string(rune('a'+i)),
		}).Expect(t, 200)
		v := env().ConsoleVisitor(t)
		v.SignIn(token)
		p := v.Get("/console/members")
		if p.Status != http.StatusOK || !strings.Contains(p.Body, email) {
			t.Fatalf("%s reads members: %d", role, p.Status)
		}
		if strings.Contains(p.Body, `action="/console/members`) || !strings.Contains(p.Body, `id="members-read-only"`) {
			t.Fatalf("%s (no members:manage) is offered the members forms:\n%s", role, p.Body)
		}
		if p := v.Post("/console/members", url.Values{"email": {"forged@example.com"}, "role": {"MEMBER"}}, true); p.Status != http.StatusForbidden {
			t.Fatalf("%s invites with a forged form: %d", role, p.Status)
		}
		if id, _ := memberStatus(t, ten, "forged@example.com"); id != "" {
			t.Fatalf("%s invited a member", role)
		}
	}
}
