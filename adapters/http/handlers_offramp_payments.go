package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/offramps"
)

func (h *offrampHandlers) createOfframpPayment(c *fiber.Ctx) error {
	var req offrampPaymentCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	v, err := h.svc.CreatePayment(c.UserContext(), principal(c), offramps.CreatePaymentInput{Phone: req.Phone,
		AmountUSD: req.AmountUSD, ChainID: req.ChainID, FundingMode: req.FundingMode,
		RequestedDestinationID: req.RequestedDestinationID, SpeedPreference: req.SpeedPreference})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toOfframpPaymentCreated(v))
}

func (h *offrampHandlers) listOfframpPayments(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	ps, total, err := h.svc.ListPayments(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := offrampPaymentListResponse{Payments: make([]offrampPaymentResponse, len(ps)), Total: total}
	for i, p := range ps {
		out.Payments[i] = toOfframpPayment(p)
	}
	return c.JSON(out)
}

func (h *offrampHandlers) getOfframpPayment(c *fiber.Ctx) error {
	p, err := h.svc.GetPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (h *offrampHandlers) offrampPaymentPayoutRoutes(c *fiber.Ctx) error {
	qs, err := h.svc.PayoutRouteQuotes(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(payoutRouteQuotesResponse{Routes: toPayoutRouteQuotes(qs)})
}

func (h *offrampHandlers) selectPayoutRoute(c *fiber.Ctx) error {
	var req payoutRouteSelectRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	p, err := h.svc.SelectPayoutRoute(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), strings.TrimSpace(req.RouteQuoteID))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (h *offrampHandlers) confirmOfframpPayment(c *fiber.Ctx) error {
	p, err := h.svc.ConfirmPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (h *offrampHandlers) cancelOfframpPayment(c *fiber.Ctx) error {
	p, err := h.svc.CancelPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (h *offrampHandlers) expireOfframpPaymentQuotes(c *fiber.Ctx) error {
	p, err := h.svc.ExpireQuotes(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (h *offrampHandlers) offrampPaymentProviderStep(c *fiber.Ctx) error {
	p, err := h.svc.ProviderStep(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

// providerWebhook hands the raw body and its signature headers to the app; the signature is
// over the exact bytes received.
func (h *offrampHandlers) providerWebhook(c *fiber.Ctx) error {
	res, err := h.svc.HandleProviderWebhook(c.UserContext(), offramps.ProviderWebhook{Provider: strings.TrimSpace(c.Params("provider")),
		Timestamp: c.Get(offramps.WebhookTimestampHeader), Signature: c.Get(offramps.WebhookSignatureHeader),
		Body: append([]byte(nil), c.Body()...)})
	if err != nil {
		return err
	}
	return c.JSON(providerWebhookResponse{Received: true, Duplicate: res.Duplicate})
}
