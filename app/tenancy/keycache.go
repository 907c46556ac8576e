package tenancy

import (
	"sync"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/tenant"
)

// Defaults of the API-key cache.
const (
	// DefaultKeyCacheTTL is how long a looked-up key row is reused: the bound on how long a
	// revocation made by another instance can go unseen here.
	DefaultKeyCacheTTL = time.Second
	// keyCacheMaxEntries bounds the cache; a full cache is emptied, not grown.
	keyCacheMaxEntries = 10_000
	// keyCacheQuiet is how long after a revocation no row is cached at all: a revocation
	// made inside a caller's transaction (an idempotent POST wraps it) commits only when that
	// transaction does, and a lookup in between would read the row still unrevoked. No
	// transaction outlives the pool's idle-in-transaction time-out (60 s by default).
	keyCacheQuiet = 90 * time.Second
)

// keyCache keeps API-key rows looked up by their public id for a short time, so an
// authenticated request need not read the key in its own transaction every time. Only the
// row is cached: the secret is still checked against its hash, and revocation and expiry
// against the cached row, on every request. Agent keys are never cached (their agent's
// suspension is checked on every request). A revocation through this service empties it at
// once and keeps it from caching for keyCacheQuiet; one made by another instance empties it
// when that instance commits (ForgetCachedKeys, called by the LISTEN/NOTIFY listener), and
// within the TTL should the listener's connection be down.
type keyCache struct {
	ttl time.Duration // ≤ 0: off
	now func() time.Time

	mu      sync.Mutex
	entries map[string]keyCacheEntry
	// gen counts invalidations: a lookup that started under an older generation is not
	// cached, since the row it read may predate the revocation.
	gen uint64
	// quietUntil: no entry is added before it (see keyCacheQuiet).
	quietUntil time.Time
	// homes are where the keys looked up live (tenant, environment, id), kept past the TTL and
	// across invalidations: they never change for a key, so a lookup that knows a key's home
	// reads its row on the tenant's shard alone, not through the lookup by public id, which on
	// Citus lives on the shard of the public id's own value, maybe another worker.
	homes map[string]keyHome
}

// keyHome is where a key's row lives.
type keyHome struct {
	tenantID, id string
	env          core.Environment
}

type keyCacheEntry struct {
	key     tenant.APIKey
	expires time.Time
}

func newKeyCache(ttl time.Duration) *keyCache {
	return &keyCache{ttl: ttl, now: time.Now, entries: map[string]keyCacheEntry{}, homes: map[string]keyHome{}}
}

// get returns the cached row of pubID, and the generation a lookup that misses must pass to put.
func (c *keyCache) get(pubID string) (tenant.APIKey, bool, uint64) {
	if c.ttl <= 0 {
		return tenant.APIKey{}, false, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[pubID]
	if ok && c.now().Before(e.expires) {
		return e.key, true, c.gen
	}
	if ok {
		delete(c.entries, pubID)
	}
	return tenant.APIKey{}, false, c.gen
}

// put caches k, read from the database after get returned gen.
func (c *keyCache) put(k tenant.APIKey, gen uint64) {
	if c.ttl <= 0 || k.AgentID != "" || k.RevokedAt != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if gen != c.gen || now.Before(c.quietUntil) {
		return
	}
	if len(c.entries) >= keyCacheMaxEntries {
		clear(c.entries)
	}
	c.entries[k.PubID] = keyCacheEntry{key: k, expires: now.Add(c.ttl)}
}

// remember records where k lives (whatever its state: a row read afresh is checked anyway).
func (c *keyCache) remember(k tenant.APIKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.homes) >= keyCacheMaxEntries {
		clear(c.homes)
	}
	c.homes[k.PubID] = keyHome{tenantID: k.TenantID, id: k.ID, env: k.Environment}
}

// home returns where the key of pubID lives, if a lookup found it before.
func (c *keyCache) home(pubID string) (keyHome, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.homes[pubID]
	return h, ok
}

// forget drops every cached row after a revocation another instance committed (heard by
// LISTEN/NOTIFY at its commit): no quiet period is needed, the revoked row is already visible.
func (c *keyCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
	c.gen++
}

// invalidate forgets every cached row; a revocation calls it before and after its unit of work.
func (c *keyCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
	c.gen++
	c.quietUntil = c.now().Add(keyCacheQuiet)
}
