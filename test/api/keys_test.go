package api

import (
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core/timestamp"
)

func TestKeys_CreateListRevoke(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	created := ten.Root.Post("/v1/api-keys", map[string]any{
		"name": "payments bot", "scopes": []string{"payments:create", "payments:read", "payments:read"},
	}).Expect(t, 201).JSON(t)
	key := created["key"].(string)
	if !strings.HasPrefix(key, "csk_test_"+created["pubId"].(string)+"_") {
		t.Fatalf("key %q does not have the csk_test_<pubId>_<secret> form", key)
	}
	if created["environment"] != "TEST" || created["expiresAt"] != nil {
		t.Fatalf("unexpected key metadata: %v", created)
	}
	if got := created["scopes"].([]any); len(got) != 2 {
		t.Fatalf("scopes %v, want two deduplicated scopes", got)
	}

	list := ten.Root.Get("/v1/api-keys").Expect(t, 200)
	if strings.Contains(string(list.Body), strings.Split(key, "_")[3]) {
		t.Fatal("list leaks a key secret")
	}
	if strings.Contains(string(list.Body), `"key"`) {
		t.Fatal("list carries a key field")
	}
	if total := list.JSON(t)["total"].(float64); total != 2 {
		t.Fatalf("total %v, want 2 (root and the new key)", total)
	}

	id := created["id"].(string)
	first := ten.Root.Post("/v1/api-keys/"+id+"/revoke", nil).Expect(t, 200).JSON(t)
	second := ten.Root.Post("/v1/api-keys/"+id+"/revoke", nil).Expect(t, 200).JSON(t)
	if first["status"] != "REVOKED" || second["revokedAt"] != first["revokedAt"] {
		t.Fatalf("revoke is not idempotent: %v then %v", first, second)
	}
	e.Client(t).WithKey(key).Get("/v1/tenants/current").ExpectError(t, 401, "UNAUTHENTICATED")
	ten.Root.Post("/v1/api-keys/key_doesnotexist/revoke", nil).ExpectError(t, 404, "API_KEY_NOT_FOUND")
}

func TestKeys_Validation(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"missing name", map[string]any{}, "name"},
		{"unknown scope", map[string]any{"name": "k", "scopes": []string{"wallets:read", "wallets:destroy"}}, "scopes[1]"},
		{"empty scopes", map[string]any{"name": "k", "scopes": []string{}}, "scopes"},
		{"unknown environment", map[string]any{"name": "k", "environment": "staging"}, "environment"},
		{"past expiry", map[string]any{"name": "k", "expiresAt": "2001-01-01T00:00:00Z"}, "expiresAt"},
		{"bad timestamp", map[string]any{"name": "k", "expiresAt": "tomorrow"}, "expiresAt"},
		{"wrong type", map[string]any{"name": "k", "scopes": "wallets:read"}, "scopes"},
		{"unknown field", map[string]any{"name": "k", "colour": "blue"}, "colour"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := ten.Root.Post("/v1/api-keys", tc.body).ExpectError(t, 400, "VALIDATION_FAILED")
			if harnessField(m, tc.field) == "" {
				t.Fatalf("details.fields has no %q: %v", tc.field, m["details"])
			}
		})
	}
	if total := ten.Root.Get("/v1/api-keys").JSON(t)["total"].(float64); total != 1 {
		t.Fatalf("refused requests created keys: total %v", total)
	}
}

func TestKeys_NoEscalation(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	manager := e.Client(t).WithKey(e.NewKey(t, ten.Root, map[string]any{"name": "m", "scopes": []string{"keys:manage", "wallets:read"}}))
	manager.Post("/v1/api-keys", map[string]any{"name": "ok", "scopes": []string{"wallets:read"}}).Expect(t, 201)
	m := manager.Post("/v1/api-keys", map[string]any{"name": "root", "scopes": []string{"*"}}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	if m["details"].(map[string]any)["required"] != "*" {
		t.Fatalf("details.required = %v", m["details"])
	}
	manager.Post("/v1/api-keys", map[string]any{"name": "w", "scopes": []string{"wallets:write"}}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	ten.Root.Post("/v1/api-keys", map[string]any{"name": "live", "environment": "live"}).ExpectError(t, 400, "VALIDATION_FAILED")
}

// TestKeys_LiveNeverSeesTest: a LIVE key sees only LIVE objects, and cannot act on TEST ones.
func TestKeys_LiveNeverSeesTest(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	liveResp := ten.Session.Post("/v1/api-keys", map[string]any{"name": "live root", "environment": "live", "scopes": []string{"*"}}).Expect(t, 201).JSON(t)
	if liveResp["environment"] != "LIVE" || !strings.HasPrefix(liveResp["key"].(string), "csk_live_") {
		t.Fatalf("live key: %v", liveResp)
	}
	live := e.Client(t).WithKey(liveResp["key"].(string))
	var list struct {
		APIKeys []struct{ ID, Environment string } `json:"apiKeys"`
		Total   int
	}
	live.Get("/v1/api-keys").Expect(t, 200).Decode(t, &list)
	if list.Total != 1 || list.APIKeys[0].Environment != "LIVE" {
		t.Fatalf("LIVE key lists %+v, want only itself", list)
	}
	testKeyID := keyID(t, ten, ten.RootKey)
	live.Post("/v1/api-keys/"+testKeyID+"/revoke", nil).ExpectError(t, 404, "API_KEY_NOT_FOUND")
	ten.Root.Get("/v1/tenants/current").Expect(t, 200) // the TEST key still works
	caps := live.Get("/v1/capabilities").Expect(t, 200).JSON(t)
	if caps["environment"] != "LIVE" {
		t.Fatalf("capabilities environment %v, want LIVE", caps["environment"])
	}
	// The LIVE key's own idempotency records are separate from TEST ones with the same key.
	a := live.With("Idempotency-Key", "shared-key").Post("/v1/api-keys", map[string]any{"name": "x", "scopes": []string{"wallets:read"}}).Expect(t, 201)
	b := ten.Root.With("Idempotency-Key", "shared-key").Post("/v1/api-keys", map[string]any{"name": "x", "scopes": []string{"wallets:read"}}).Expect(t, 201)
	if b.Header.Get("Idempotent-Replayed") != "" || a.JSON(t)["environment"] == b.JSON(t)["environment"] {
		t.Fatal("an idempotency record crossed environments")
	}
}

func TestKeys_OtherTenantAnswers404(t *testing.T) {
	t.Parallel()
	e := env()
	a, b := e.NewTenant(t), e.NewTenant(t)
	id := keyID(t, a, a.RootKey)
	b.Root.Post("/v1/api-keys/"+id+"/revoke", nil).ExpectError(t, 404, "API_KEY_NOT_FOUND")
	a.Root.Get("/v1/tenants/current").Expect(t, 200)
}

func TestKeys_ExpiryInTheFutureWorks(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	exp := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	resp := ten.Root.Post("/v1/api-keys", map[string]any{"name": "k", "scopes": []string{"*"}, "expiresAt": exp.Format(time.RFC3339)}).Expect(t, 201).JSON(t)
	if resp["expiresAt"] != timestamp.Format(exp) { // the API's one form: six fraction digits
		t.Fatalf("expiresAt %v, want %v", resp["expiresAt"], timestamp.Format(exp))
	}
	e.Client(t).WithKey(resp["key"].(string)).Get("/v1/tenants/current").Expect(t, 200)
}

// TestKeys_ExpiringKeyCannotMintLongerLivedKeys: a temporary key cannot make its access permanent.
func TestKeys_ExpiringKeyCannotMintLongerLivedKeys(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	exp := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	temp := e.Client(t).WithKey(e.NewKey(t, ten.Root, map[string]any{"name": "temp", "scopes": []string{"keys:manage", "wallets:read"},
		"expiresAt": exp.Format(time.RFC3339)}))
	for _, body := range []map[string]any{
		{"name": "forever", "scopes": []string{"wallets:read"}},
		{"name": "later", "scopes": []string{"wallets:read"}, "expiresAt": exp.Add(time.Minute).Format(time.RFC3339)},
	} {
		m := temp.Post("/v1/api-keys", body).ExpectError(t, 400, "VALIDATION_FAILED")
		if harnessField(m, "expiresAt") == "" {
			t.Fatalf("expiresAt not named: %v", m)
		}
	}
	temp.Post("/v1/api-keys", map[string]any{"name": "ok", "scopes": []string{"wallets:read"}, "expiresAt": exp.Format(time.RFC3339)}).Expect(t, 201)
}

// TestErrors_NulAndInvalidUTF8AreClientErrors: input PostgreSQL cannot store is refused as 400.
func TestErrors_NulAndInvalidUTF8AreClientErrors(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	ten.Root.Post("/v1/api-keys", `{"name":"a\u0000b"}`).ExpectError(t, 400, "VALIDATION_FAILED")
	ten.Root.Post("/v1/tenants/members", []byte("{\"email\":\"a@b.co\",\"displayName\":\"\xff\"}")).ExpectError(t, 400, "VALIDATION_FAILED")
	ten.Root.Get("/v1/tenants/members?skip=%00").ExpectError(t, 400, "VALIDATION_FAILED")
	ten.Root.Get("/v1/ledger/entries?accountId=%ff").ExpectError(t, 400, "VALIDATION_FAILED")
}

// TestKeys_RevokedKeyStopsAtOnceAfterUse: a key used just before its revocation (so its row is
// in authentication's cache) answers 401 on the very next request, reads and writes alike.
func TestKeys_RevokedKeyStopsAtOnceAfterUse(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	created := ten.Root.Post("/v1/api-keys", map[string]any{"name": "soon revoked", "scopes": []string{"*"}}).Expect(t, 201).JSON(t)
	key := e.Client(t).WithKey(created["key"].(string))
	for range 3 {
		key.Get("/v1/tenants/current").Expect(t, 200)
	}
	key.Post("/v1/api-keys", map[string]any{"name": "before-revoke"}).Expect(t, 201)
	ten.Root.Post("/v1/api-keys/"+created["id"].(string)+"/revoke", nil).Expect(t, 200)
	key.Get("/v1/tenants/current").ExpectError(t, 401, "UNAUTHENTICATED")
	key.Post("/v1/api-keys", map[string]any{"name": "after-revoke"}).ExpectError(t, 401, "UNAUTHENTICATED")
	ten.Root.Get("/v1/tenants/current").Expect(t, 200)
}
