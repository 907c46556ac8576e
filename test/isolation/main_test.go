// Package isolation walks every operation of the served OpenAPI document and attacks it: no
// credential, another tenant's credential on this tenant's object, a key lacking the
// operation's scopes, and a key of the other environment. The list of operations comes from
// GET /v1/openapi.json, never from a hand-written list, so a new route cannot skip the matrix;
// a path parameter whose resource has no fixture here fails the test, so a new resource must
// bring one.
package isolation

import (
	"testing"

	"corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

func env() *harness.Env { return harness.Shared() }
