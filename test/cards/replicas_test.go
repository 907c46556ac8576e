package cards

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestReplicas_EphemeralKeysShared: two instances behind one proxy (the loopback is trusted,
// X-Forwarded-For names the client) share one count of ephemeral keys per client IP with
// RATE_LIMIT_STORE=postgres: three through the first and two through the second spend the
// five a minute, and the sixth is refused on either.
func TestReplicas_EphemeralKeysShared(t *testing.T) {
	t.Parallel()
	shared := func(c *wiring.Config) {
		c.SharedRateLimits = true
		// The shared count is what is checked, not the fallback to each instance's own count
		// when the database answers a decision late (250 ms), which a loaded machine reaches.
		c.SharedRateLimitTimeout = 10 * time.Second
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	}
	a, b := harness.NewServer(t, shared), harness.NewServer(t, shared)
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 0)
	id := issue(t, ten.Root, w, nil)["cardId"].(string)
	// A client address of this test's own, so no other test's keys count against it.
	client := fmt.Sprintf("10.%d.%d.%d", rand.IntN(256), rand.IntN(256), 1+rand.IntN(254))
	on := func(e *harness.Env) *harness.Client {
		return e.Client(t).WithKey(ten.RootKey).With("X-Forwarded-For", client)
	}
	for i, e := range []*harness.Env{a, b, a, b, a} {
		if r := on(e).Post("/v1/cards/"+id+"/ephemeral-keys", map[string]any{"platform": "vendor_a"}); r.Status != 201 {
			t.Fatalf("key %d: status %d %s", i+1, r.Status, r.Body)
		}
	}
	on(b).Post("/v1/cards/"+id+"/ephemeral-keys", map[string]any{"platform": "vendor_a"}).
		ExpectError(t, http.StatusTooManyRequests, "RATE_LIMITED")
	on(a).Post("/v1/cards/"+id+"/ephemeral-keys", map[string]any{"platform": "vendor_a"}).
		ExpectError(t, http.StatusTooManyRequests, "RATE_LIMITED")
}
