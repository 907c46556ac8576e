package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/core/checkout"
)

// Paths both surfaces share (docs/decisions/checkout.md): POST /v1/payments and POST /v1/wallets take either body
// shape, GET /v1/payments/{id} either id family. Which surface answers is the adapter's
// decision, made here, so a handler type never reaches another capability's handlers: the
// endpoint list of the canonical capability is given the secondary alternative.

// prepare is the first step of a POST (Endpoint.Prepare): it runs outside any transaction and
// returns the step the kernel runner applies inside its unit of work.
type prepare = func(c *fiber.Ctx) (fiber.Handler, error)

// applied is the prepare of a POST that needs nothing from outside the database.
func applied(handler fiber.Handler) prepare {
	return func(*fiber.Ctx) (fiber.Handler, error) { return handler, nil }
}

// outsideStep is the prepare of a sandbox helper whose whole purpose is a call that leaves the
// process (a chain send as a payer's wallet would make it): the helper runs while preparing,
// outside any transaction, with the units of work its job would run, and the runner's unit
// only answers what it wrote.
func outsideStep(handler fiber.Handler) prepare {
	return func(c *fiber.Ctx) (fiber.Handler, error) {
		if err := handler(c); err != nil {
			return nil, err
		}
		resp := c.Response()
		status, body, contentType := resp.StatusCode(), append([]byte(nil), resp.Body()...), string(resp.Header.ContentType())
		return func(c *fiber.Ctx) error {
			c.Set(fiber.HeaderContentType, contentType)
			return c.Status(status).Send(body)
		}, nil
	}
}

// eitherBody serves a shared POST: a body the route's SecondaryBody recognised (the register
// step marked it) goes to secondary, any other to canonical.
func eitherBody(canonical, secondary prepare) prepare {
	return func(c *fiber.Ctx) (fiber.Handler, error) {
		if isSecondary, _ := c.Locals(localSecondary).(bool); isSecondary {
			return secondary(c)
		}
		return canonical(c)
	}
}

// eitherCheckoutID serves a shared GET by its id: a chk_ id is a checkout.
func eitherCheckoutID(canonical, checkout fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if isCheckoutID(c.Params("id")) {
			return checkout(c)
		}
		return canonical(c)
	}
}

// secondaryPayments are the checkout capability's halves of the shared payment paths.
type secondaryPayments struct {
	create prepare       // POST /v1/payments with a checkout body
	get    fiber.Handler // GET /v1/payments/{chk_…}
}

// secondaryRoute is a SecondaryErrors route: its method and its path's segments ("{id}"
// matches any one segment).
type secondaryRoute struct {
	method   string
	segments []string
}

func (r secondaryRoute) matches(method, path string) bool {
	got := strings.Split(path, "/")
	if method != r.method || len(got) != len(r.segments) {
		return false
	}
	for i, seg := range r.segments {
		if seg != got[i] && !strings.HasPrefix(seg, "{") {
			return false
		}
	}
	return true
}

// markSecondary marks a request to a SecondaryErrors route before any other middleware can
// refuse it, so every refusal of the route is in the secondary shape.
func (s *Server) markSecondary(c *fiber.Ctx) error {
	// GET /v1/payments/{chk_…}: the id's prefix selects the secondary surface (docs/decisions/checkout.md).
	if id, ok := strings.CutPrefix(c.Path(), "/v1/payments/"); ok && c.Method() == fiber.MethodGet &&
		strings.HasPrefix(id, checkout.PrefixCheckout+"_") && !strings.Contains(id, "/") {
		c.Locals(localSecondary, true)
		return c.Next()
	}
	for _, r := range s.secondaryRoutes {
		if r.matches(c.Method(), c.Path()) {
			c.Locals(localSecondary, true)
			break
		}
	}
	return c.Next()
}
