package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"corridor/app"
)

func (s *Server) createOfframpPayment(c *fiber.Ctx) error {
	var req offrampCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	v, err := s.svc.App.CreateOfframpPayment(c.UserContext(), principal(c), app.CreateOfframpInput{Phone: req.Phone,
		AmountUSD: req.AmountUSD, ChainID: req.ChainID, FundingMode: req.FundingMode,
		RequestedDestinationID: req.RequestedDestinationID, SpeedPreference: req.SpeedPreference})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toOfframpCreated(v))
}

func (s *Server) listOfframpPayments(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	ps, total, err := s.svc.App.ListOfframpPayments(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := offrampListResponse{Payments: make([]offrampPaymentResponse, len(ps)), Total: total}
	for i, p := range ps {
		out.Payments[i] = toOfframpPayment(p)
	}
	return c.JSON(out)
}

func (s *Server) getOfframpPayment(c *fiber.Ctx) error {
	p, err := s.svc.App.GetOfframpPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (s *Server) offrampRoutesOf(c *fiber.Ctx) error {
	qs, err := s.svc.App.OfframpRoutes(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(offrampRoutesResponse{Routes: toRouteQuotes(qs)})
}

func (s *Server) selectOfframpRoute(c *fiber.Ctx) error {
	var req offrampSelectRouteRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	p, err := s.svc.App.SelectOfframpRoute(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), strings.TrimSpace(req.RouteQuoteID))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (s *Server) confirmOfframpPayment(c *fiber.Ctx) error {
	p, err := s.svc.App.ConfirmOfframpPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (s *Server) cancelOfframpPayment(c *fiber.Ctx) error {
	p, err := s.svc.App.CancelOfframpPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (s *Server) expireOfframpQuotes(c *fiber.Ctx) error {
	p, err := s.svc.App.ExpireOfframpQuotes(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

func (s *Server) offrampProviderStep(c *fiber.Ctx) error {
	p, err := s.svc.App.ProviderStep(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toOfframpPayment(p))
}

// providerWebhook hands the raw body and its signature headers to the app; the signature is
// over the exact bytes received.
func (s *Server) providerWebhook(c *fiber.Ctx) error {
	res, err := s.svc.App.HandleProviderWebhook(c.UserContext(), app.ProviderWebhook{Provider: strings.TrimSpace(c.Params("provider")),
		Timestamp: c.Get(app.WebhookTimestampHeader), Signature: c.Get(app.WebhookSignatureHeader),
		Body: append([]byte(nil), c.Body()...)})
	if err != nil {
		return err
	}
	return c.JSON(providerWebhookResponse{Received: true, Duplicate: res.Duplicate})
}
