package api

import (
	"testing"
	"time"

	"corridor/test/harness"
	"corridor/wiring"
)

// TestReplicas_KeyRevocationSeenAtOnce: two instances on one database, each caching API-key
// rows for ten minutes. A key revoked through one is refused by the other as soon as the
// revocation commits (LISTEN/NOTIFY), not after the cache's TTL (D23).
func TestReplicas_KeyRevocationSeenAtOnce(t *testing.T) {
	t.Parallel()
	longCache := func(c *wiring.Config) { c.APIKeyCacheTTL = 10 * time.Minute }
	a, b := harness.NewServer(t, longCache), harness.NewServer(t, longCache)
	ten := a.NewTenant(t)
	key := a.NewKey(t, ten.Session, map[string]any{"name": "shared", "scopes": []string{"*"}})
	created := a.Client(t).WithKey(key).Get("/v1/api-keys").Expect(t, 200).JSON(t)["apiKeys"].([]any)
	var id string
	for _, k := range created {
		if k.(map[string]any)["name"] == "shared" {
			id = k.(map[string]any)["id"].(string)
		}
	}
	onB := b.Client(t).WithKey(key)
	onB.Get("/v1/tenants/current").Expect(t, 200) // b caches the row for ten minutes
	a.Client(t).WithSession(ten.SessionToken).Post("/v1/api-keys/"+id+"/revoke", nil).Expect(t, 200)
	got := harness.Poll(t, "the other instance to refuse the revoked key", func() map[string]any {
		r := onB.Get("/v1/tenants/current")
		return map[string]any{"status": r.Status}
	}, func(m map[string]any) bool { return m["status"] == 401 })
	if got["status"] != 401 {
		t.Fatalf("the revoked key still works on the other instance: %v", got)
	}
}
