package http

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/core"
)

// headerOperatorToken carries the operator token of docs/decisions/operations.md on /v1/admin/... routes.
const headerOperatorToken = "X-Operator-Token"

// MinOperatorTokenLength is the shortest operator token configuration accepts.
const MinOperatorTokenLength = 32

// authenticateOperator admits a request carrying the configured operator token (constant-time
// comparison). No token configured: 503, the operator surface is off. Tenant credentials on an
// admin route are refused (401), with or without an operator token.
func (s *Server) authenticateOperator(c *fiber.Ctx) error {
	if s.cfg.OperatorToken == "" {
		return core.E(core.CodeServiceUnavailable, "operator routes are disabled: OPERATOR_TOKEN is not configured")
	}
	if c.Get(headerAPIKey) != "" || c.Get(fiber.HeaderAuthorization) != "" {
		if limited := s.limitAnonymous(c); limited != nil {
			return limited
		}
		return core.E(core.CodeUnauthenticated, "admin routes take %s only, never tenant credentials", headerOperatorToken)
	}
	got := sha256.Sum256([]byte(c.Get(headerOperatorToken)))
	want := sha256.Sum256([]byte(s.cfg.OperatorToken))
	if c.Get(headerOperatorToken) == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		if limited := s.limitAnonymous(c); limited != nil {
			return limited
		}
		return core.E(core.CodeUnauthenticated, "missing or wrong %s", headerOperatorToken)
	}
	return c.Next()
}

// operatorName identifies the approving operator in the durable record: a fingerprint of the
// configured token (one token today; several named tokens would each get their own).
func operatorName(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "operator-token:" + hex.EncodeToString(sum[:6])
}
