package http

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/ports"
)

// TestLaggingReads_RoutesExistAndAreReads: every route the read replica may serve is in the
// endpoint table and is a GET, so a renamed route cannot silently fall back to the primary
// and a write can never be marked.
func TestLaggingReads_RoutesExistAndAreReads(t *testing.T) {
	s, err := New(Config{Store: nopStore{}}, nopServices(t), slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, r := range s.Endpoints() {
		found[r.Method+" "+r.Path] = true
	}
	for route := range laggingReadRoutes {
		if !found[route] {
			t.Errorf("%s is not a route", route)
		}
		if route[:4] != "GET " {
			t.Errorf("%s is not a read", route)
		}
	}
}

// TestMarkLaggingReads_MatchesListsOnly: a marked path pattern marks its GETs, not its POSTs
// nor other paths.
func TestMarkLaggingReads_MatchesListsOnly(t *testing.T) {
	s, err := New(Config{Store: nopStore{}}, nopServices(t), slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	s.MarkLaggingReads("/console/wallets", "/console/accounts/:id")
	answer := func(c *fiber.Ctx) error {
		if ports.LaggingReadsAllowed(c.UserContext()) {
			return c.SendString("replica")
		}
		return c.SendString("primary")
	}
	for _, p := range []string{"/console/wallets", "/console/accounts/:id", "/console/wallets/:id"} {
		s.Fiber().Get(p, answer)
		s.Fiber().Post(p, answer)
	}
	for _, tc := range []struct{ method, path, want string }{
		{"GET", "/console/wallets", "replica"},
		{"GET", "/console/wallets/", "replica"},
		{"GET", "/console/accounts/acc_1", "replica"},
		{"POST", "/console/wallets", "primary"},
		{"GET", "/console/wallets/wal_1", "primary"},
	} {
		resp, err := s.Fiber().Test(httptest.NewRequest(tc.method, tc.path, nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if string(body) != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.method, tc.path, body, tc.want)
		}
	}
}
