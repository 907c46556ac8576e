package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/ports"
)

// laggingReadRoutes are the API reads that may be served by the read replica within its lag
// bound (docs/decisions/scaling.md): finance exports and statements, and the secondary surface's lists.
// Everything else reads the primary, so a partner reads its own writes.
var laggingReadRoutes = map[string]bool{
	"GET /v1/ledger/accounts":                true,
	"GET /v1/ledger/accounts/{id}/statement": true,
	"GET /v1/ledger/entries":                 true,
	"GET /v1/ledger/trial-balance":           true,
	"GET /v1/checkouts":                      true,
	"GET /v1/transactions":                   true,
	"GET /v1/wallets/{id}/transactions":      true,
	"GET /v1/payments/{id}/refunds":          true,
}

// markLaggingReads lets the request's units of work run on the read replica.
func markLaggingReads(c *fiber.Ctx) error {
	c.SetUserContext(ports.WithLaggingReads(c.UserContext()))
	return c.Next()
}

// MarkLaggingReads marks the GET requests of paths (Fiber patterns, ":id" matching one
// segment) as reads the replica may serve; the console's lists use it. Call it before the
// routes it covers are mounted.
func (s *Server) MarkLaggingReads(paths ...string) {
	patterns := make([][]string, len(paths))
	for i, p := range paths {
		patterns[i] = strings.Split(p, "/")
	}
	s.fiber.Use(func(c *fiber.Ctx) error {
		if c.Method() != fiber.MethodGet {
			return c.Next()
		}
		got := strings.Split(strings.TrimSuffix(c.Path(), "/"), "/")
		for _, want := range patterns {
			if segmentsMatch(want, got) {
				return markLaggingReads(c)
			}
		}
		return c.Next()
	})
}

func segmentsMatch(pattern, path []string) bool {
	if len(pattern) != len(path) {
		return false
	}
	for i, seg := range pattern {
		if seg != path[i] && !(strings.HasPrefix(seg, ":") && path[i] != "") {
			return false
		}
	}
	return true
}
