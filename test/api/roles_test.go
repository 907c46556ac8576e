package api

import (
	"strconv"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// roleSessions gives a tenant and the sessions of its OWNER, an ADMIN and a MEMBER (each an
// accepted invite linked to its own identity-provider user).
func roleSessions(t *testing.T) (*harness.Tenant, map[string]string) {
	t.Helper()
	e := env()
	ten := e.NewTenant(t)
	tokens := map[string]string{"OWNER": ten.SessionToken}
	for i, role := range []string{"ADMIN", "MEMBER"} {
		inv := ten.Session.Post("/v1/tenants/members", map[string]any{"email": role + "@example.com", "role": role}).Expect(t, 201).JSON(t)
		_, token := e.NewUserWithEmail(t, role+"@example.com")
		e.Client(t).WithSession(token).Post("/v1/tenants/members/accept", map[string]any{
			"token": inv["inviteToken"], "signerAddress": signerN(i),
		}).Expect(t, 200)
		tokens[role] = token
	}
	return ten, tokens
}

func signerN(i int) string {
	return "0x" + "00000000000000000000000000000000000000" + strconv.Itoa(10+i)
}

// roleAction is one action class of the role matrix (docs/decisions/README.md, "Member roles").
type roleAction struct {
	name     string
	live     bool   // the session asks for the LIVE environment
	required string // the scope a refused role is told it lacks
	// memberRequired overrides required for MEMBER, who fails an earlier check.
	memberRequired string
	allowed        map[string]bool
	do             func(c *harness.Client, n int) *harness.Response
	// okStatus is the answer of an allowed role: 2xx, or for an action on a made-up id, the
	// not-found that shows the scope check let the caller through.
	okStatus int
}

func roleMatrix() []roleAction {
	all := map[string]bool{"OWNER": true, "ADMIN": true, "MEMBER": true}
	admins := map[string]bool{"OWNER": true, "ADMIN": true}
	owner := map[string]bool{"OWNER": true}
	return []roleAction{
		{name: "read wallets", allowed: all, okStatus: 200, do: func(c *harness.Client, _ int) *harness.Response { return c.Get("/v1/wallets") }},
		{name: "read members", allowed: all, okStatus: 200, do: func(c *harness.Client, _ int) *harness.Response { return c.Get("/v1/tenants/members") }},
		{name: "read LIVE", live: true, allowed: all, okStatus: 200, do: func(c *harness.Client, _ int) *harness.Response { return c.Get("/v1/policies") }},
		{name: "operate: sandbox deposit", required: "payments:create", allowed: all, okStatus: 201, do: func(c *harness.Client, _ int) *harness.Response {
			return c.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "1"})
		}},
		{name: "move money: off-ramp cancel", required: "ramps:write", allowed: admins, okStatus: 404, do: func(c *harness.Client, _ int) *harness.Response {
			return c.Post("/v1/offramp/payments/opay_unknown/cancel", nil)
		}},
		{name: "policies: create", required: "policies:write", allowed: admins, okStatus: 201, do: func(c *harness.Client, n int) *harness.Response {
			return c.Post("/v1/policies", map[string]any{"name": "p" + strconv.Itoa(n), "document": map[string]any{"schemaVersion": 1, "limits": map[string]any{"perTransactionUsd": "100"}}})
		}},
		{name: "compliance: sandbox credential", required: "identity:write", allowed: admins, okStatus: 200, do: func(c *harness.Client, _ int) *harness.Response {
			return c.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"})
		}},
		{name: "keys: TEST key", required: "keys:manage", allowed: admins, okStatus: 201, do: func(c *harness.Client, n int) *harness.Response {
			return c.Post("/v1/api-keys", map[string]any{"name": "k" + strconv.Itoa(n), "scopes": []string{"wallets:read"}})
		}},
		{name: "keys: LIVE key from a LIVE session", live: true, required: "keys:manage", allowed: owner, okStatus: 201, do: func(c *harness.Client, n int) *harness.Response {
			return c.Post("/v1/api-keys", map[string]any{"name": "k" + strconv.Itoa(n), "scopes": []string{"wallets:read"}})
		}},
		{name: "keys: LIVE key from a TEST session", required: "keys:manage", allowed: owner, okStatus: 201, do: func(c *harness.Client, n int) *harness.Response {
			return c.Post("/v1/api-keys", map[string]any{"name": "k" + strconv.Itoa(n), "environment": "live", "scopes": []string{"wallets:read"}})
		}},
		{name: "keys: root key", required: "*", memberRequired: "keys:manage", allowed: owner, okStatus: 201, do: func(c *harness.Client, n int) *harness.Response {
			return c.Post("/v1/api-keys", map[string]any{"name": "r" + strconv.Itoa(n), "scopes": []string{"*"}})
		}},
		{name: "members: invite", required: "members:manage", allowed: owner, okStatus: 201, do: func(c *harness.Client, n int) *harness.Response {
			return c.Post("/v1/tenants/members", map[string]any{"email": "new" + strconv.Itoa(n) + "@example.com"})
		}},
	}
}

// TestRoles_Matrix walks every role's session through every action class: an allowed role
// passes, a refused one gets 403 INSUFFICIENT_SCOPE naming the scope it lacks.
func TestRoles_Matrix(t *testing.T) {
	t.Parallel()
	e := env()
	_, tokens := roleSessions(t)
	n := 0
	for _, action := range roleMatrix() {
		for _, role := range []string{"OWNER", "ADMIN", "MEMBER"} {
			n++
			c := e.Client(t).WithSession(tokens[role])
			if action.live {
				c = c.With("X-Corridor-Environment", "live")
			}
			r := action.do(c, n)
			if !action.allowed[role] {
				m := r.ExpectError(t, 403, "INSUFFICIENT_SCOPE")
				want := action.required
				if role == "MEMBER" && action.memberRequired != "" {
					want = action.memberRequired
				}
				if got := m["details"].(map[string]any)["required"]; got != want {
					t.Errorf("%s as %s: details.required = %v, want %s", action.name, role, got, want)
				}
				continue
			}
			if r.Status != action.okStatus {
				t.Errorf("%s as %s: status %d, want %d; body: %s", action.name, role, r.Status, action.okStatus, r.Body)
			}
		}
	}
}

// TestRoles_CurrentTenantNamesTheRole: each session sees its own role.
func TestRoles_CurrentTenantNamesTheRole(t *testing.T) {
	t.Parallel()
	_, tokens := roleSessions(t)
	for role, token := range tokens {
		if got := env().Client(t).WithSession(token).Get("/v1/tenants/current").Expect(t, 200).JSON(t)["role"]; got != role {
			t.Errorf("role %v, want %s", got, role)
		}
	}
}

// TestRoles_RevokedMemberKeysStopAuthenticating: the keys an ADMIN minted, and the keys those
// keys minted, answer 401 once the member is revoked; the owner's keys keep working.
func TestRoles_RevokedMemberKeysStopAuthenticating(t *testing.T) {
	t.Parallel()
	e := env()
	ten, tokens := roleSessions(t)
	admin := e.Client(t).WithSession(tokens["ADMIN"])
	created := admin.Post("/v1/api-keys", map[string]any{"name": "ops", "scopes": []string{"keys:manage", "wallets:read"}}).Expect(t, 201).JSON(t)
	by := created["createdBy"].(map[string]any)
	if by["memberId"] == nil || by["userId"] == nil || by["apiKeyId"] != nil {
		t.Fatalf("createdBy of a member's key: %v", by)
	}
	adminKey := e.Client(t).WithKey(created["key"].(string))
	child := adminKey.Post("/v1/api-keys", map[string]any{"name": "child", "scopes": []string{"wallets:read"}}).Expect(t, 201).JSON(t)
	if child["createdBy"].(map[string]any)["apiKeyId"] != created["id"] {
		t.Fatalf("createdBy of a key's key: %v", child["createdBy"])
	}
	childKey := e.Client(t).WithKey(child["key"].(string))
	childKey.Get("/v1/wallets").Expect(t, 200)

	members := ten.Root.Get("/v1/tenants/members").Expect(t, 200).JSON(t)["members"].([]any)
	var adminID string
	for _, m := range members {
		if m.(map[string]any)["role"] == "ADMIN" {
			adminID = m.(map[string]any)["id"].(string)
		}
	}
	ten.Session.Post("/v1/tenants/members/"+adminID+"/revoke", nil).Expect(t, 200)

	adminKey.Get("/v1/wallets").ExpectError(t, 401, "UNAUTHENTICATED")
	childKey.Get("/v1/wallets").ExpectError(t, 401, "UNAUTHENTICATED")
	admin.Get("/v1/wallets").ExpectError(t, 403, "TENANT_REQUIRED")
	ten.Root.Get("/v1/wallets").Expect(t, 200)
}

// TestKeys_CannotRevokeAStrongerKey: a keys:manage key revokes only keys whose scopes it holds.
func TestKeys_CannotRevokeAStrongerKey(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	manager := e.Client(t).WithKey(e.NewKey(t, ten.Root, map[string]any{"name": "m", "scopes": []string{"keys:manage", "wallets:read"}}))
	writer := ten.Root.Post("/v1/api-keys", map[string]any{"name": "w", "scopes": []string{"wallets:read", "wallets:write"}}).Expect(t, 201).JSON(t)
	reader := ten.Root.Post("/v1/api-keys", map[string]any{"name": "r", "scopes": []string{"wallets:read"}}).Expect(t, 201).JSON(t)

	m := manager.Post("/v1/api-keys/"+keyID(t, ten, ten.RootKey)+"/revoke", nil).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	if m["details"].(map[string]any)["required"] != "*" {
		t.Fatalf("revoking the root key: %v", m["details"])
	}
	m = manager.Post("/v1/api-keys/"+writer["id"].(string)+"/revoke", nil).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	if m["details"].(map[string]any)["required"] != "wallets:write" {
		t.Fatalf("revoking a wider key: %v", m["details"])
	}
	ten.Root.Get("/v1/wallets").Expect(t, 200)
	e.Client(t).WithKey(writer["key"].(string)).Get("/v1/wallets").Expect(t, 200)

	if r := manager.Post("/v1/api-keys/"+reader["id"].(string)+"/revoke", nil).Expect(t, 200).JSON(t); r["status"] != "REVOKED" {
		t.Fatalf("revoking a narrower key: %v", r)
	}
	e.Client(t).WithKey(reader["key"].(string)).Get("/v1/wallets").ExpectError(t, 401, "UNAUTHENTICATED")
}
