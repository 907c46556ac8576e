package console

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestConsole_SignInIsThrottled: the console's and the operator console's sign-in forms take a
// bounded number of attempts per client address per minute: past it they answer 429 with
// Retry-After before looking at the token, the right one included, and each form counts on its
// own. A server with a budget of 3 shows it.
func TestConsole_SignInIsThrottled(t *testing.T) {
	t.Parallel()
	srv := harness.NewServer(t, func(c *wiring.Config) { c.ConsoleSignInsPerMinute = 3 })
	ten := srv.NewTenant(t)
	v := srv.ConsoleVisitor(t)
	v.Get("/console/signin")
	for i := 0; i < 3; i++ {
		if p := v.Post("/console/signin", url.Values{"token": {"not-a-session"}, "environment": {"test"}}, true); p.Status != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i+1, p.Status)
		}
	}
	p := v.Post("/console/signin", url.Values{"token": {ten.SessionToken}, "environment": {"test"}}, true)
	if p.Status != http.StatusTooManyRequests || p.Header.Get("Retry-After") == "" {
		t.Fatalf("fourth attempt: %d (Retry-After %q), want 429", p.Status, p.Header.Get("Retry-After"))
	}

	op := srv.ConsoleVisitor(t)
	op.Get("/console/operator/signin")
	for i := 0; i < 3; i++ {
		if p := op.Post("/console/operator/signin", url.Values{"token": {"guess"}}, true); p.Status != http.StatusUnauthorized {
			t.Fatalf("operator attempt %d: %d", i+1, p.Status)
		}
	}
	p = op.Post("/console/operator/signin", url.Values{"token": {harness.OperatorToken}}, true)
	if p.Status != http.StatusTooManyRequests || p.Header.Get("Retry-After") == "" {
		t.Fatalf("fourth operator attempt: %d, want 429", p.Status)
	}
}

// TestConsole_SignInBudgetIsSharedByReplicas: two servers on one database are two replicas of
// one deployment; the sign-in budget of a client address is one for both, so alternating
// between them does not double it. With a budget of 2 a minute, one attempt on each spends it
// and the third, on either, answers 429 with Retry-After; the operator form counts apart. (The
// budget is part of the shared key, so no other test's server, configured otherwise, shares
// these buckets.)
func TestConsole_SignInBudgetIsSharedByReplicas(t *testing.T) {
	t.Parallel()
	budget := func(c *wiring.Config) { c.ConsoleSignInsPerMinute = 2 }
	a, b := harness.NewServer(t, budget), harness.NewServer(t, budget)
	va, vb := a.ConsoleVisitor(t), b.ConsoleVisitor(t)
	va.Get("/console/signin")
	vb.Get("/console/signin")
	bad := url.Values{"token": {"not-a-session"}, "environment": {"test"}}
	if p := va.Post("/console/signin", bad, true); p.Status != http.StatusUnauthorized {
		t.Fatalf("attempt on replica A: %d", p.Status)
	}
	if p := vb.Post("/console/signin", bad, true); p.Status != http.StatusUnauthorized {
		t.Fatalf("attempt on replica B: %d", p.Status)
	}
	for name, v := range map[string]*harness.ConsoleVisitor{"A": va, "B": vb} {
		if p := v.Post("/console/signin", bad, true); p.Status != http.StatusTooManyRequests || p.Header.Get("Retry-After") == "" {
			t.Fatalf("third attempt on replica %s: %d (Retry-After %q), want 429: the replicas count apart", name, p.Status, p.Header.Get("Retry-After"))
		}
	}
	op := b.ConsoleVisitor(t)
	op.Get("/console/operator/signin")
	if p := op.Post("/console/operator/signin", url.Values{"token": {"guess"}}, true); p.Status != http.StatusUnauthorized {
		t.Fatalf("the operator form shares the members' budget: %d", p.Status)
	}
}
