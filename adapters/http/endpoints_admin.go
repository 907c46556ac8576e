package http

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"

	"github.com/gofiber/fiber/v2"

	"corridor/core"
)

// headerOperatorToken carries the operator token of D11 on /v1/admin/... routes.
const headerOperatorToken = "X-Operator-Token"

// MinOperatorTokenLength is the shortest operator token configuration accepts.
const MinOperatorTokenLength = 32

// adminEndpoints are the operator routes of D11. They authenticate with the configured operator
// token only; a tenant API key or session is never accepted there.
func (s *Server) adminEndpoints() []Endpoint {
	pathID := []Param{{Name: "id", In: "path"}}
	return []Endpoint{
		{Method: "POST", Path: "/v1/admin/offramp/payments/{id}/approve-review", Summary: "Operator: approve a payment's review holds (TRANSACTION_MONITORING_REVIEW, CREDENTIAL_CHANGED_REVIEW_REQUIRED); the policy composer then runs again (D11)", Tag: "admin",
			Auth: authOperator, Params: pathID,
			Responses: map[int]any{200: offrampPaymentResponse{}, 401: Envelope{}, 404: Envelope{}, 409: Envelope{}, 503: Envelope{}}, Handler: s.approveOfframpReview},
	}
}

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
func (s *Server) operatorName() string {
	sum := sha256.Sum256([]byte(s.cfg.OperatorToken))
	return "operator-token:" + hex.EncodeToString(sum[:6])
}

func (s *Server) approveOfframpReview(c *fiber.Ctx) error {
	p, err := s.svc.Offramp.ApproveReview(c.UserContext(), s.operatorName(), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}
