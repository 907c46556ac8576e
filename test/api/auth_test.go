package api

import (
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
)

// TestAuth_Matrix walks every way a credential can fail, on an endpoint that needs a scope.
func TestAuth_Matrix(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	readOnly := e.NewKey(t, ten.Root, map[string]any{"name": "read-only"})
	expiring := e.NewKey(t, ten.Root, map[string]any{"name": "short", "scopes": []string{"*"},
		"expiresAt": time.Now().Add(1500 * time.Millisecond).UTC().Format(time.RFC3339Nano)})
	revoked := e.NewKey(t, ten.Root, map[string]any{"name": "revoked", "scopes": []string{"*"}})
	revokedID := keyID(t, ten, revoked)
	ten.Root.Post("/v1/api-keys/"+revokedID+"/revoke", nil).Expect(t, 200)
	time.Sleep(1600 * time.Millisecond) // let the short key expire

	validParts := strings.Split(ten.RootKey, "_")
	wrongSecret := strings.Join(validParts[:3], "_") + "_" + strings.Repeat("a", len(validParts[3]))
	wrongEnv := "csk_live_" + validParts[2] + "_" + validParts[3]

	anon := e.Client(t)
	cases := []struct {
		name   string
		client *harness.Client
		status int
		code   string
	}{
		{"no credentials", anon, 401, "UNAUTHENTICATED"},
		{"malformed key", anon.WithKey("not-a-key"), 401, "UNAUTHENTICATED"},
		{"unknown prefix", anon.WithKey("sk_test_abc_def"), 401, "UNAUTHENTICATED"},
		{"unknown pubId", anon.WithKey("csk_test_zzzzzzzzzzzzzzzz_" + validParts[3]), 401, "UNAUTHENTICATED"},
		{"wrong secret", anon.WithKey(wrongSecret), 401, "UNAUTHENTICATED"},
		{"environment label does not match the key", anon.WithKey(wrongEnv), 401, "UNAUTHENTICATED"},
		{"expired key", anon.WithKey(expiring), 401, "UNAUTHENTICATED"},
		{"revoked key", anon.WithKey(revoked), 401, "UNAUTHENTICATED"},
		{"bad bearer scheme", anon.With("Authorization", "Basic abc"), 401, "UNAUTHENTICATED"},
		{"forged session", anon.WithSession("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig"), 401, "UNAUTHENTICATED"},
		{"missing scope", anon.WithKey(readOnly), 403, "INSUFFICIENT_SCOPE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.client.Post("/v1/tenants/members", map[string]any{"email": "x@example.com"}).ExpectError(t, tc.status, tc.code)
			if tc.code == "INSUFFICIENT_SCOPE" {
				details := m["details"].(map[string]any)
				if details["required"] != "members:manage" {
					t.Fatalf("details.required = %v, want members:manage", details["required"])
				}
			}
		})
	}
	t.Run("a valid LIVE root key passes", func(t *testing.T) {
		// A member acts in both environments, so inviting one needs a credential that holds the
		// role in both: a LIVE root key (its scopes count in TEST too) or the owner's session.
		// A TEST root key does not hold LIVE powers and cannot create them (docs/decisions/tenancy.md).
		live := e.NewKey(t, ten.Session, map[string]any{"name": "live root", "environment": "live", "scopes": []string{"*"}})
		e.Client(t).WithKey(live).Post("/v1/tenants/members", map[string]any{"email": "x@example.com"}).Expect(t, 201)
		m := ten.Root.Post("/v1/tenants/members", map[string]any{"email": "y@example.com"}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
		if d := m["details"].(map[string]any); d["environment"] != "LIVE" {
			t.Fatalf("a TEST key's invite refused for %v, want the LIVE environment named", d)
		}
	})
}

func TestAuth_SessionWithoutTenant(t *testing.T) {
	t.Parallel()
	e := env()
	_, token := e.NewUser(t)
	s := e.Client(t).WithSession(token)
	s.Get("/v1/tenants/current").ExpectError(t, 403, "TENANT_REQUIRED")
	s.Get("/v1/api-keys").ExpectError(t, 403, "TENANT_REQUIRED")
	s.Post("/v1/api-keys", map[string]any{"name": "k"}).ExpectError(t, 403, "TENANT_REQUIRED")
}

func TestAuth_ExpiredSession(t *testing.T) {
	t.Parallel()
	e := env()
	token, err := e.Issuer.IssueSession("usr_expired", "x@example.com", -time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	e.Client(t).WithSession(token).Get("/v1/tenants/current").ExpectError(t, 401, "UNAUTHENTICATED")
}

func TestAuth_DefaultScopesAreReadOnly(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	resp := ten.Root.Post("/v1/api-keys", map[string]any{"name": "default"}).Expect(t, 201).JSON(t)
	scopes := resp["scopes"].([]any)
	if len(scopes) == 0 {
		t.Fatal("default key has no scopes")
	}
	for _, s := range scopes {
		if !strings.HasSuffix(s.(string), ":read") {
			t.Fatalf("default scope %v is not a :read scope", s)
		}
	}
	reader := e.Client(t).WithKey(resp["key"].(string))
	reader.Get("/v1/tenants/members").Expect(t, 200)
	reader.Post("/v1/tenants/members", map[string]any{"email": "a@example.com"}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	reader.Get("/v1/api-keys").ExpectError(t, 403, "INSUFFICIENT_SCOPE")
}

func keyID(t *testing.T, ten *harness.Tenant, plaintext string) string {
	t.Helper()
	pub := strings.Split(plaintext, "_")[2]
	var list struct {
		APIKeys []struct{ ID, PubID string } `json:"apiKeys"`
	}
	ten.Root.Get("/v1/api-keys").Expect(t, 200).Decode(t, &list)
	for _, k := range list.APIKeys {
		if k.PubID == pub {
			return k.ID
		}
	}
	t.Fatalf("key %s not listed", pub)
	return ""
}

// TestAuth_KeyAsBearerSaysWhereItGoes: an API key sent as "Authorization: Bearer csk_…" (how
// other payment APIs take theirs) is refused with a message naming X-Service-Api-Key, not as a
// bad session token; the same key in its header works.
func TestAuth_KeyAsBearerSaysWhereItGoes(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	m := e.Client(t).With("Authorization", "Bearer "+ten.RootKey).Get("/v1/tenants/current").ExpectError(t, 401, "UNAUTHENTICATED")
	if msg := m["message"].(string); !strings.Contains(msg, "X-Service-Api-Key") || strings.Contains(msg, "invalid or expired") {
		t.Fatalf("a key sent as a bearer token: %q", msg)
	}
	e.Client(t).WithKey(ten.RootKey).Get("/v1/tenants/current").Expect(t, 200)
}
