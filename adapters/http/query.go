package http

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/core"
)

// refuseUnknownQuery answers 400 VALIDATION_FAILED, naming each parameter, for a query
// parameter the route does not declare in its Params: a misspelt filter (?wallet_id= for
// ?walletId=) would otherwise be ignored and the caller would act on an unfiltered list. Only
// API routes (/v1/...) are checked; the hosted payment page and its assets keep whatever a
// link adds (tracking parameters). Nil when the route takes every parameter it could be sent.
func refuseUnknownQuery(r Endpoint) fiber.Handler {
	if !strings.HasPrefix(r.Path, "/v1/") {
		return nil
	}
	var allowed []string
	for _, p := range r.Params {
		if p.In == "query" {
			allowed = append(allowed, p.Name)
		}
	}
	return func(c *fiber.Ctx) error {
		errs := core.FieldErrors{}
		c.Context().QueryArgs().VisitAll(func(key, _ []byte) {
			if name := string(key); !slices.Contains(allowed, name) {
				errs.Add(name, "is not a parameter of this route")
			}
		})
		if err := errs.Err(); err != nil {
			return err
		}
		return c.Next()
	}
}
