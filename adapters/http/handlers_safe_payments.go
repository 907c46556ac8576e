package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"
)

func (s *Server) createSafePayment(c *fiber.Ctx) error {
	var req safePaymentCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	pay, err := s.svc.SafePay.Propose(c.UserContext(), principal(c), req.request())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toSafePayment(pay))
}

func (s *Server) listSafePayments(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	payments, total, err := s.svc.SafePay.List(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := safePaymentListResponse{Payments: make([]safePaymentResponse, len(payments)), Total: total}
	for i, p := range payments {
		out.Payments[i] = toSafePayment(p)
	}
	return c.JSON(out)
}

func (s *Server) getSafePayment(c *fiber.Ctx) error {
	pay, err := s.svc.SafePay.Get(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toSafePayment(pay))
}

func (s *Server) signSafePayment(c *fiber.Ctx) error {
	var req safePaymentSignRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	pay, err := s.svc.SafePay.Sign(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.Signature)
	if err != nil {
		return err
	}
	return c.JSON(toSafePayment(pay))
}

func (s *Server) executeSafePayment(c *fiber.Ctx) error {
	var req safePaymentOwnerRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	pay, err := s.svc.SafePay.Execute(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.OwnerAddress)
	if err != nil {
		return err
	}
	return c.JSON(toSafePayment(pay))
}

func (s *Server) cancelSafePayment(c *fiber.Ctx) error {
	var req safePaymentOwnerRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	pay, err := s.svc.SafePay.Cancel(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.OwnerAddress)
	if err != nil {
		return err
	}
	return c.JSON(toSafePayment(pay))
}
