package api

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestReplicas_KeyRevocationSeenAtOnce: two instances on one database, each caching API-key
// rows for ten minutes. A key revoked through one is refused by the other as soon as the
// revocation commits (LISTEN/NOTIFY), not after the cache's TTL (docs/decisions/scaling.md).
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

// TestReplicas_RateLimitShared: two instances on one database, each allowing a burst of four
// and one more request an hour per credential. With RATE_LIMIT_STORE=postgres the two count
// against one bucket: eight requests alternating between them let four through. Counted in
// each process, the same eight all pass (the per-replica figure the shared store removes).
func TestReplicas_RateLimitShared(t *testing.T) {
	t.Parallel()
	tight := func(shared bool) func(*wiring.Config) {
		return func(c *wiring.Config) {
			c.RateLimit = http.RateLimit{PerSecond: 1.0 / 3600, Burst: 4}
			c.SharedRateLimits = shared
		}
	}
	for _, tc := range []struct {
		name   string
		shared bool
		want   int
	}{{"shared", true, 4}, {"per process", false, 8}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, b := harness.NewServer(t, tight(tc.shared)), harness.NewServer(t, tight(tc.shared))
			ten := harness.Shared().NewTenant(t)
			passed := 0
			for i := range 8 {
				srv := a
				if i%2 == 1 {
					srv = b
				}
				r := srv.Client(t).WithKey(ten.RootKey).Get("/v1/tenants/current")
				switch r.Status {
				case 200:
					passed++
				case 429:
					if r.Header.Get("Retry-After") == "" {
						t.Fatal("429 without Retry-After")
					}
				default:
					t.Fatalf("request %d: status %d", i+1, r.Status)
				}
			}
			if passed != tc.want {
				t.Fatalf("%d of 8 requests passed across two replicas, want %d", passed, tc.want)
			}
		})
	}
}
