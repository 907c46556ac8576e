package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"
)

func (s *Server) createPayment(c *fiber.Ctx) error {
	var req paymentCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	pay, err := s.svc.App.ProposePayment(c.UserContext(), principal(c), req.request())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toPayment(pay))
}

func (s *Server) listPayments(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	payments, total, err := s.svc.App.ListPayments(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := paymentListResponse{Payments: make([]paymentResponse, len(payments)), Total: total}
	for i, p := range payments {
		out.Payments[i] = toPayment(p)
	}
	return c.JSON(out)
}

func (s *Server) getPayment(c *fiber.Ctx) error {
	pay, err := s.svc.App.GetPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toPayment(pay))
}

func (s *Server) signPayment(c *fiber.Ctx) error {
	var req paymentSignRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	pay, err := s.svc.App.SignPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.Signature)
	if err != nil {
		return err
	}
	return c.JSON(toPayment(pay))
}

func (s *Server) executePayment(c *fiber.Ctx) error {
	var req paymentOwnerRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	pay, err := s.svc.App.ExecutePayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.OwnerAddress)
	if err != nil {
		return err
	}
	return c.JSON(toPayment(pay))
}

func (s *Server) cancelPayment(c *fiber.Ctx) error {
	var req paymentOwnerRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	pay, err := s.svc.App.CancelPayment(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.OwnerAddress)
	if err != nil {
		return err
	}
	return c.JSON(toPayment(pay))
}
