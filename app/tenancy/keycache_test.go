package tenancy

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/tenant"
)

func testCache(ttl time.Duration) (*keyCache, *time.Time) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newKeyCache(ttl)
	c.now = func() time.Time { return now }
	return c, &now
}

func TestKeyCache_HitsUntilTTL(t *testing.T) {
	c, now := testCache(time.Second)
	_, ok, gen := c.get("pub1")
	if ok {
		t.Fatal("empty cache hit")
	}
	c.put(tenant.APIKey{ID: "key_1", PubID: "pub1"}, gen)
	if k, ok, _ := c.get("pub1"); !ok || k.ID != "key_1" {
		t.Fatalf("after put: %v %v", k, ok)
	}
	*now = now.Add(time.Second)
	if _, ok, _ := c.get("pub1"); ok {
		t.Fatal("entry served after its TTL")
	}
}

func TestKeyCache_InvalidateDropsAndBlocksStaleLookups(t *testing.T) {
	c, now := testCache(time.Second)
	_, _, gen := c.get("pub1")
	c.put(tenant.APIKey{ID: "key_1", PubID: "pub1"}, gen)
	_, _, stale := c.get("pub2") // a lookup that reads its row before the revocation …
	c.invalidate()
	if _, ok, _ := c.get("pub1"); ok {
		t.Fatal("entry served after invalidate")
	}
	c.put(tenant.APIKey{ID: "key_2", PubID: "pub2"}, stale) // … and caches it after
	if _, ok, _ := c.get("pub2"); ok {
		t.Fatal("a row read before the invalidation was cached")
	}
	_, _, fresh := c.get("pub3")
	c.put(tenant.APIKey{ID: "key_3", PubID: "pub3"}, fresh)
	if _, ok, _ := c.get("pub3"); ok {
		t.Fatal("cached during the quiet period after a revocation")
	}
	*now = now.Add(keyCacheQuiet)
	_, _, fresh = c.get("pub3")
	c.put(tenant.APIKey{ID: "key_3", PubID: "pub3"}, fresh)
	if _, ok, _ := c.get("pub3"); !ok {
		t.Fatal("not cached after the quiet period")
	}
}

func TestKeyCache_SkipsAgentRevokedAndOff(t *testing.T) {
	c, _ := testCache(time.Second)
	_, _, gen := c.get("a")
	revoked := time.Now()
	c.put(tenant.APIKey{ID: "key_a", PubID: "a", AgentID: "agt_1"}, gen)
	c.put(tenant.APIKey{ID: "key_r", PubID: "r", RevokedAt: &revoked}, gen)
	for _, pub := range []string{"a", "r"} {
		if _, ok, _ := c.get(pub); ok {
			t.Fatalf("%s cached", pub)
		}
	}
	off, _ := testCache(-1)
	off.put(tenant.APIKey{ID: "key_1", PubID: "pub1"}, 0)
	if _, ok, _ := off.get("pub1"); ok {
		t.Fatal("a disabled cache served an entry")
	}
}

func TestKeyCache_Bounded(t *testing.T) {
	c, _ := testCache(time.Minute)
	for i := range keyCacheMaxEntries + 10 {
		_, _, gen := c.get("x")
		c.put(tenant.APIKey{PubID: string(rune('a'+i%26)) + time.Duration(i).String()}, gen)
	}
	if len(c.entries) > keyCacheMaxEntries {
		t.Fatalf("%d entries, bound %d", len(c.entries), keyCacheMaxEntries)
	}
}

// TestKeyCache_HomesOutliveRowsAndInvalidation: where a key lives (tenant, environment, id) is
// kept after its row's TTL and across invalidations (it never changes), so a lookup after them
// reads the row on its tenant's shard rather than through the public id's lookup row.
func TestKeyCache_HomesOutliveRowsAndInvalidation(t *testing.T) {
	c, now := testCache(time.Second)
	if _, ok := c.home("pub1"); ok {
		t.Fatal("a home before any lookup")
	}
	c.remember(tenant.APIKey{ID: "key_1", PubID: "pub1", TenantID: "ten_1", Environment: core.EnvTest})
	*now = now.Add(time.Hour)
	c.invalidate()
	c.forget()
	h, ok := c.home("pub1")
	if !ok || h.tenantID != "ten_1" || h.id != "key_1" || h.env != core.EnvTest {
		t.Fatalf("home after TTL and invalidation: %+v %v", h, ok)
	}
	if _, fresh, _ := c.get("pub1"); fresh {
		t.Fatal("a home is not a cached row: the row must be read again")
	}
}
