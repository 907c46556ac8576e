package http

import (
	"bytes"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// TestNew_RefusesMissingServices: a server wired without a capability's service fails at
// start-up naming it, rather than on the first request that routes to it.
func TestNew_RefusesMissingServices(t *testing.T) {
	svc := nopServices(t)
	svc.SafePay, svc.Offramp = nil, nil
	_, err := New(Config{Store: nopStore{}}, svc, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "SafePay, Offramp") {
		t.Fatalf("err = %v, want the missing services named", err)
	}
}

// TestObserve_LabelsMountedRoutesByTemplate: a page mounted beside the API (the console's) is
// logged under its route template, an unknown path as unmatched.
func TestObserve_LabelsMountedRoutesByTemplate(t *testing.T) {
	var buf bytes.Buffer
	s, err := New(Config{Store: nopStore{}}, nopServices(t), slog.New(slog.NewJSONHandler(&buf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	s.Fiber().Get("/console/things/:id", func(c *fiber.Ctx) error { return c.SendString("ok") })
	for _, path := range []string{"/console/things/thg_1", "/nowhere"} {
		if _, err := s.Fiber().Test(httptest.NewRequest("GET", path, nil), -1); err != nil {
			t.Fatal(err)
		}
	}
	out := buf.String()
	if !strings.Contains(out, `"route":"/console/things/:id"`) || !strings.Contains(out, `"route":"unmatched"`) || strings.Contains(out, "thg_1") {
		t.Fatalf("log:\n%s", out)
	}
}

// TestEndpoints_EveryRouteDeclaresScopesOrIsPublic: a route that declares no scope must say why
// it is public; every other route's scopes are enforced by the middleware (docs/decisions/tenancy.md).
func TestEndpoints_EveryRouteDeclaresScopesOrIsPublic(t *testing.T) {
	features := map[string]bool{}
	for _, f := range []string{"offrampPayments", "pendingClaims", "operatorReview", "cards", "treasury", "ramps", "invoices"} {
		features[f] = true
	}
	s, err := New(Config{Store: nopStore{}, Capabilities: CapabilitiesConfig{Features: features}}, nopServices(t),
		slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Endpoints()) < 130 {
		t.Fatalf("only %d routes with every feature on", len(s.Endpoints()))
	}
	for _, r := range s.Endpoints() {
		switch {
		case len(r.Scopes) == 0 && r.Public == "":
			t.Errorf("%s %s declares no scope and no reason to be public", r.Method, r.Path)
		case len(r.Scopes) > 0 && r.Public != "":
			t.Errorf("%s %s declares scopes and a public reason", r.Method, r.Path)
		case len(r.Scopes) > 0 && r.Auth != authRequired:
			t.Errorf("%s %s declares scopes on a route that does not require a credential", r.Method, r.Path)
		}
	}
}
