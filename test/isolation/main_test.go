// Package isolation walks every operation of the served OpenAPI document and attacks it: no
// credential, another tenant's credential on this tenant's object, a key lacking the
// operation's scopes, and a key of the other environment. The list of operations comes from
// GET /v1/openapi.json, never from a hand-written list, so a new route cannot skip the matrix;
// a path parameter whose resource has no fixture here fails the test, so a new resource must
// bring one.
package isolation

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// The victim's webhook endpoint points at a closed loopback port: TEST may name private
// receivers here, since every special-purpose address, documentation ranges included, is
// refused otherwise.
func TestMain(m *testing.M) {
	harness.MainWithOptions(m, harness.Options{Chain: true, Modify: func(c *wiring.Config) { c.Webhooks.AllowPrivateTest = true }})
}

func env() *harness.Env { return harness.Shared() }
