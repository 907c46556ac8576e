package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/offramps"
)

// createOfframpPayment validates the payment and screens its recipient while preparing,
// outside any transaction; intake then runs in the runner's one unit of work.
func (h *offrampHandlers) createOfframpPayment(c *fiber.Ctx) (fiber.Handler, error) {
	var req offrampPaymentCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	prepared, err := h.svc.PrepareCreate(c.UserContext(), principal(c), offramps.CreatePaymentInput{Phone: req.Phone,
		AmountUSD: req.AmountUSD, ChainID: req.ChainID, FundingMode: req.FundingMode,
		RequestedDestinationID: req.RequestedDestinationID, SpeedPreference: req.SpeedPreference})
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		v, err := h.svc.ApplyCreate(c.UserContext(), principal(c), prepared)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toOfframpPaymentCreated(v))
	}, nil
}

// screenedPayment prepares the screening verdict of the payment the path names (a select or
// confirm may find its quote expired and compose the payment again), then applies handler.
func (h *offrampHandlers) screenedPayment(handler fiber.Handler) prepare {
	return func(c *fiber.Ctx) (fiber.Handler, error) {
		if err := h.svc.PreparePaymentFor(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id"))); err != nil {
			return nil, err
		}
		return handler, nil
	}
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

// offrampPaymentProviderStep is a sandbox helper that polls the provider: the poll leaves the
// process, so the whole step (the poll and the units that record what it reported, as its job
// would) runs while preparing, and the runner's unit only answers the payment.
func (h *offrampHandlers) offrampPaymentProviderStep(c *fiber.Ctx) (fiber.Handler, error) {
	p, err := h.svc.ProviderStep(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error { return c.JSON(toOfframpPayment(p)) }, nil
}

// providerWebhook hands the raw body and its signature headers to the app; the signature is
// over the exact bytes received.
// A webhook is a trigger: the payment's provider is polled (a call that leaves the process)
// and what it reports is recorded in the poll job's own units of work. So the whole step runs
// while preparing, outside any transaction, and the runner's unit only answers.
func (h *offrampHandlers) providerWebhook(c *fiber.Ctx) (fiber.Handler, error) {
	res, err := h.svc.HandleProviderWebhook(c.UserContext(), offramps.ProviderWebhook{Provider: strings.TrimSpace(c.Params("provider")),
		Timestamp: c.Get(offramps.WebhookTimestampHeader), Signature: c.Get(offramps.WebhookSignatureHeader),
		Body: append([]byte(nil), c.Body()...)})
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		return c.JSON(providerWebhookResponse{Received: true, Duplicate: res.Duplicate})
	}, nil
}
