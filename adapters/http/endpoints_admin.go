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
		{Method: "POST", Path: "/v1/admin/offramp/payments/{id}/approve-review", Public: "operator action, authorized by the operator token (D11), never a tenant credential", Summary: "Operator: approve a payment's review holds (TRANSACTION_MONITORING_REVIEW, CREDENTIAL_CHANGED_REVIEW_REQUIRED); the policy composer then runs again (D11)", Tag: "admin",
			Auth: authOperator, Params: pathID,
			Responses: map[int]any{200: offrampPaymentResponse{}, 401: Envelope{}, 404: Envelope{}, 409: Envelope{}, 503: Envelope{}}, Handler: s.approveOfframpReview},
		{Method: "POST", Path: "/v1/admin/payout-providers/{provider}/liquidity", Public: "operator action, authorized by the operator token (D11), never a tenant credential", Summary: "Operator: top up a payout provider's route liquidity in one environment, once per reference; payments held INSUFFICIENT_ROUTE_LIQUIDITY are rechecked by the next hold recheck pass (D11)", Tag: "admin",
			Auth: authOperator, Params: []Param{{Name: "provider", In: "path"}}, Request: liquidityTopUpRequest{},
			Responses: map[int]any{200: liquidityResponse{}, 400: Envelope{}, 401: Envelope{}, 404: Envelope{}, 503: Envelope{}}, Handler: s.topUpLiquidity},
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

type liquidityTopUpRequest struct {
	Environment string `json:"environment" oas:"required,enum=TEST|LIVE"`
	AmountUSD   string `json:"amountUsd" oas:"required"`
	// Reference is the operator's id of this top-up: a retry with the same one adds nothing.
	Reference string `json:"reference" oas:"required,maxLength=128"`
}

type liquidityResponse struct {
	Provider    string `json:"provider" oas:"required"`
	Environment string `json:"environment" oas:"required"`
	// ConfiguredUSD is PAYOUT_{PROVIDER}_LIQUIDITY_USD ("0": uncapped); LiquidityUSD is it
	// plus every top-up, null when uncapped.
	ConfiguredUSD string  `json:"configuredUsd" oas:"required"`
	ToppedUpUSD   string  `json:"toppedUpUsd" oas:"required"`
	LiquidityUSD  *string `json:"liquidityUsd" oas:"required"`
	Added         bool    `json:"added" oas:"required"`
}

func (s *Server) topUpLiquidity(c *fiber.Ctx) error {
	var req liquidityTopUpRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	amount, err := core.ParseAmount("amountUsd", 6, strings.TrimSpace(req.AmountUSD))
	if err != nil {
		return err
	}
	l, err := s.svc.Offramp.TopUpLiquidity(c.UserContext(), s.operatorName(), core.Environment(strings.TrimSpace(req.Environment)),
		c.Params("provider"), req.Reference, amount)
	if err != nil {
		return err
	}
	out := liquidityResponse{Provider: l.Provider, Environment: string(l.Environment), ConfiguredUSD: core.FormatUSD(l.ConfiguredBaseUnits),
		ToppedUpUSD: core.FormatUSD(l.ToppedUpBaseUnits), Added: l.Added}
	if l.EffectiveBaseUnits > 0 {
		v := core.FormatUSD(l.EffectiveBaseUnits)
		out.LiquidityUSD = &v
	}
	return c.JSON(out)
}
