package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/core"
)

// adminEndpoints are the operator routes of docs/decisions/operations.md. They authenticate with the configured operator
// token only; a tenant API key or session is never accepted there.
func (h *offrampHandlers) adminEndpoints() []Endpoint {
	pathID := []Param{{Name: "id", In: "path"}}
	return []Endpoint{
		{Method: "POST", Path: "/v1/admin/offramp/payments/{id}/approve-review", Public: "operator action, authorized by the operator token (docs/decisions/operations.md), never a tenant credential", Summary: "Operator: approve a payment's review holds (TRANSACTION_MONITORING_REVIEW, CREDENTIAL_CHANGED_REVIEW_REQUIRED); the policy composer then runs again (docs/decisions/operations.md)", Tag: "admin",
			Auth: authOperator, Params: pathID,
			Responses: map[int]any{200: offrampPaymentResponse{}, 401: Envelope{}, 404: Envelope{}, 409: Envelope{}, 503: Envelope{}}, Handler: h.approveOfframpReview},
		{Method: "POST", Path: "/v1/admin/payout-providers/{provider}/liquidity", Public: "operator action, authorized by the operator token (docs/decisions/operations.md), never a tenant credential", Summary: "Operator: top up a payout provider's route liquidity in one environment, once per reference; payments held INSUFFICIENT_ROUTE_LIQUIDITY are rechecked by the next hold recheck pass (docs/decisions/operations.md)", Tag: "admin",
			Auth: authOperator, Params: []Param{{Name: "provider", In: "path"}}, Request: liquidityTopUpRequest{},
			Responses: map[int]any{200: liquidityResponse{}, 400: Envelope{}, 401: Envelope{}, 404: Envelope{}, 503: Envelope{}}, Handler: h.topUpLiquidity},
	}
}

func (h *offrampHandlers) approveOfframpReview(c *fiber.Ctx) error {
	p, err := h.reviews.ApproveReview(c.UserContext(), h.actor, strings.TrimSpace(c.Params("id")))
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
	Provider    string `json:"provider" oas:"required" description:"The payout provider topped up (lower case)."`
	Environment string `json:"environment" oas:"required"`
	// ConfiguredUSD is PAYOUT_{PROVIDER}_LIQUIDITY_USD ("0": uncapped); LiquidityUSD is it
	// plus every top-up, null when uncapped.
	ConfiguredUSD string  `json:"configuredUsd" oas:"required"`
	ToppedUpUSD   string  `json:"toppedUpUsd" oas:"required"`
	LiquidityUSD  *string `json:"liquidityUsd" oas:"required"`
	Added         bool    `json:"added" oas:"required" description:"Whether this call added liquidity: false for a retry with a reference already recorded."`
}

func (h *offrampHandlers) topUpLiquidity(c *fiber.Ctx) error {
	var req liquidityTopUpRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	amount, err := core.ParseAmount("amountUsd", 6, strings.TrimSpace(req.AmountUSD))
	if err != nil {
		return err
	}
	l, err := h.svc.TopUpLiquidity(c.UserContext(), h.operator, core.Environment(strings.TrimSpace(req.Environment)),
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
