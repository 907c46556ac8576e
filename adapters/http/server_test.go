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
		if _, err := s.Fiber().Test(httptest.NewRequest("GET", path, nil)); err != nil {
			t.Fatal(err)
		}
	}
	out := buf.String()
	if !strings.Contains(out, `"route":"/console/things/:id"`) || !strings.Contains(out, `"route":"unmatched"`) || strings.Contains(out, "thg_1") {
		t.Fatalf("log:\n%s", out)
	}
}
