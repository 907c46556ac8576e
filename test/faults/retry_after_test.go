package faults

import (
	"testing"

	"github.com/corridorhq/corridor/wiring"
)

// A 503 for a transient condition says when to retry: the database that does not answer
// (Retry-After 2, docs/api.md Errors). A 503 for a configuration state a retry cannot cure
// (the operator routes of a service without OPERATOR_TOKEN) carries no Retry-After.
func TestDatabaseFaults_RetryAfter(t *testing.T) {
	env, proxy := proxiedServer(t, func(c *wiring.Config) { c.OperatorToken = "" })
	ten := env.NewTenant(t)
	c := as(t, env, ten)
	c.Get("/v1/balances").Expect(t, 200)

	proxy.Blackhole(true)
	r := c.Get("/v1/balances")
	r.ExpectError(t, 503, "SERVICE_UNAVAILABLE")
	if got := r.Header.Get("Retry-After"); got != "2" {
		t.Errorf("a database that does not answer: Retry-After %q, want 2", got)
	}
	proxy.Blackhole(false)

	admin := env.Client(t).With("X-Operator-Token", "optok_test_0123456789abcdef0123456789abcdef")
	r = admin.Get("/v1/admin/failed-jobs")
	r.ExpectError(t, 503, "SERVICE_UNAVAILABLE")
	if got := r.Header.Get("Retry-After"); got != "" {
		t.Errorf("operator routes not configured: Retry-After %q, want none", got)
	}
}
