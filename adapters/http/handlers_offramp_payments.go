package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	offrampapp "corridor/app/offramp"
)

func (s *Server) createOfframpPayment(c *fiber.Ctx) error {
	var req offrampPaymentCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	v, err := s.svc.Offramp.CreatePayment(c.UserContext(), principal(c), offrampapp.CreatePaymentInput{Phone: req.Phone,
		AmountUSD: req.AmountUSD, ChainID: req.ChainID, FundingMode: req.FundingMode,
		RequestedDestinationID: req.RequestedDestinationID, SpeedPreference: req.SpeedPreference})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toOfframpPaymentCreated(v))
}

func (s *Server) listOfframpPayments(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	ps, total, err := s.svc.Offramp.ListPayments(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := offrampPaymentListResponse{Payments: make([]offrampPaymentResponse, len(ps)), Total: total}
	for i, p := range ps {
		out.Payments[i] = toOfframpPayment(p)
	}
	return c.JSON(out)
}

func (s *Server) getOfframpPayment(c *fiber.Ctx) error {
	p, err := s.svc.Offramp.GetPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (s *Server) offrampPaymentPayoutRoutes(c *fiber.Ctx) error {
	qs, err := s.svc.Offramp.PayoutRouteQuotes(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(payoutRouteQuotesResponse{Routes: toPayoutRouteQuotes(qs)})
}

func (s *Server) selectPayoutRoute(c *fiber.Ctx) error {
	var req payoutRouteSelectRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	p, err := s.svc.Offramp.SelectPayoutRoute(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), strings.TrimSpace(req.RouteQuoteID))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (s *Server) confirmOfframpPayment(c *fiber.Ctx) error {
	p, err := s.svc.Offramp.ConfirmPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (s *Server) cancelOfframpPayment(c *fiber.Ctx) error {
	p, err := s.svc.Offramp.CancelPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (s *Server) expireOfframpPaymentQuotes(c *fiber.Ctx) error {
	p, err := s.svc.Offramp.ExpireQuotes(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (s *Server) offrampPaymentProviderStep(c *fiber.Ctx) error {
	p, err := s.svc.Offramp.ProviderStep(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

// providerWebhook hands the raw body and its signature headers to the app; the signature is
// over the exact bytes received.
func (s *Server) providerWebhook(c *fiber.Ctx) error {
	res, err := s.svc.Offramp.HandleProviderWebhook(c.UserContext(), offrampapp.ProviderWebhook{Provider: strings.TrimSpace(c.Params("provider")),
		Timestamp: c.Get(offrampapp.WebhookTimestampHeader), Signature: c.Get(offrampapp.WebhookSignatureHeader),
		Body: append([]byte(nil), c.Body()...)})
	if err != nil {
		return err
	}
	return c.JSON(providerWebhookResponse{Received: true, Duplicate: res.Duplicate})
}
