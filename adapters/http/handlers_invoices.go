package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"corridor/core/invoice"
)

func (s *Server) createInvoice(c *fiber.Ctx) error {
	var req invoiceRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	inv, err := s.svc.Invoices.Create(c.UserContext(), principal(c), req.input())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toInvoice(inv))
}

func (s *Server) listInvoices(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	list, total, err := s.svc.Invoices.List(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := invoiceListResponse{Invoices: make([]invoiceResponse, len(list)), Total: total}
	for i, inv := range list {
		out.Invoices[i] = toInvoice(inv)
	}
	return c.JSON(out)
}

func (s *Server) getInvoice(c *fiber.Ctx) error {
	inv, err := s.svc.Invoices.Get(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toInvoice(inv))
}

func (s *Server) sendInvoice(c *fiber.Ctx) error {
	inv, err := s.svc.Invoices.Send(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(toInvoice(inv))
}

func (s *Server) deliverInvoice(c *fiber.Ctx) error {
	var req invoiceDeliverRequest
	if len(c.Body()) > 0 {
		if err := decodeBody(c, &req); err != nil {
			return err
		}
	}
	inv, err := s.svc.Invoices.Deliver(c.UserContext(), principal(c), c.Params("id"), req.Evidence)
	if err != nil {
		return err
	}
	return c.JSON(toInvoice(inv))
}

func (s *Server) releaseInvoice(c *fiber.Ctx) (fiber.Handler, error) {
	return s.settleInvoice(c, invoice.Release)
}

func (s *Server) refundInvoice(c *fiber.Ctx) (fiber.Handler, error) {
	return s.settleInvoice(c, invoice.Refund)
}

func (s *Server) settleInvoice(c *fiber.Ctx, kind invoice.Settlement) (fiber.Handler, error) {
	var req invoiceSettleRequest
	if len(c.Body()) > 0 {
		if err := decodeBody(c, &req); err != nil {
			return nil, err
		}
	}
	read, err := s.svc.Invoices.ReadSettlement(c.UserContext(), principal(c), c.Params("id"), kind, req.OwnerAddress, req.TwofaChallengeID)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		inv, err := s.svc.Invoices.Settle(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.JSON(toInvoice(inv))
	}, nil
}

func (s *Server) cancelInvoice(c *fiber.Ctx) (fiber.Handler, error) {
	read, err := s.svc.Invoices.ReadCancel(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		inv, err := s.svc.Invoices.Cancel(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.JSON(toInvoice(inv))
	}, nil
}

// publicInvoice answers anyone holding the id, rate limited per client IP.
func (s *Server) publicInvoice(c *fiber.Ctx) error {
	if limited := s.limitAnonymous(c); limited != nil {
		return limited
	}
	inv, err := s.svc.Invoices.Public(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(invoicePublicResponse{AmountUsd: toInvoice(inv).AmountUsd, Status: string(inv.Status),
		HoldAddress: strPtr(inv.HoldAddress), ChainID: inv.ChainID})
}

func (s *Server) advanceInvoice(c *fiber.Ctx) error {
	var req invoiceAdvanceRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	inv, err := s.svc.Invoices.Advance(c.UserContext(), principal(c), c.Params("id"), req.Seconds)
	if err != nil {
		return err
	}
	return c.JSON(toInvoice(inv))
}

func (s *Server) arbiterSign(c *fiber.Ctx) error {
	inv, err := s.svc.Invoices.ArbiterSign(c.UserContext(), s.operatorName(), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toInvoice(inv))
}

func (s *Server) sendBill(c *fiber.Ctx) error {
	var req billRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	b, err := s.svc.Invoices.SendBill(c.UserContext(), principal(c), req.input())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toBill(b))
}

func (s *Server) listInboundBills(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	list, total, err := s.svc.Invoices.ListInbound(c.UserContext(), principal(c), c.Query("verification"), page)
	if err != nil {
		return err
	}
	out := billListResponse{Bills: make([]billResponse, len(list)), Total: total}
	for i, b := range list {
		out.Bills[i] = toBill(b)
	}
	return c.JSON(out)
}

func (s *Server) getInboundBill(c *fiber.Ctx) error {
	b, err := s.svc.Invoices.GetInbound(c.UserContext(), principal(c), c.Params("invoiceId"))
	if err != nil {
		return err
	}
	return c.JSON(toBill(b))
}

func (s *Server) acceptBill(c *fiber.Ctx) (fiber.Handler, error) {
	var req billAcceptRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := s.svc.Invoices.ReadAccept(c.UserContext(), principal(c), c.Params("invoiceId"), req.WalletID, req.TwofaChallengeID)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		b, err := s.svc.Invoices.Accept(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.JSON(toBill(b))
	}, nil
}
