package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/core/invoice"
)

func (h *invoicesHandlers) createInvoice(c *fiber.Ctx) error {
	var req invoiceRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	in, err := req.input()
	if err != nil {
		return err
	}
	inv, err := h.svc.Create(c.UserContext(), principal(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toInvoice(inv))
}

func (h *invoicesHandlers) listInvoices(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	list, total, err := h.svc.List(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := invoiceListResponse{Invoices: make([]invoiceResponse, len(list)), Total: total}
	for i, inv := range list {
		out.Invoices[i] = toInvoice(inv)
	}
	return c.JSON(out)
}

func (h *invoicesHandlers) getInvoice(c *fiber.Ctx) error {
	inv, err := h.svc.Get(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toInvoice(inv))
}

func (h *invoicesHandlers) sendInvoice(c *fiber.Ctx) error {
	inv, err := h.svc.Send(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(toInvoice(inv))
}

func (h *invoicesHandlers) deliverInvoice(c *fiber.Ctx) error {
	var req invoiceDeliverRequest
	if len(c.Body()) > 0 {
		if err := decodeBody(c, &req); err != nil {
			return err
		}
	}
	inv, err := h.svc.Deliver(c.UserContext(), principal(c), c.Params("id"), req.Evidence)
	if err != nil {
		return err
	}
	return c.JSON(toInvoice(inv))
}

func (h *invoicesHandlers) releaseInvoice(c *fiber.Ctx) (fiber.Handler, error) {
	return h.settleInvoice(c, invoice.Release)
}

func (h *invoicesHandlers) refundInvoice(c *fiber.Ctx) (fiber.Handler, error) {
	return h.settleInvoice(c, invoice.Refund)
}

func (h *invoicesHandlers) settleInvoice(c *fiber.Ctx, kind invoice.Settlement) (fiber.Handler, error) {
	var req invoiceSettleRequest
	if len(c.Body()) > 0 {
		if err := decodeBody(c, &req); err != nil {
			return nil, err
		}
	}
	read, err := h.svc.ReadSettlement(c.UserContext(), principal(c), c.Params("id"), kind, req.OwnerAddress, req.TwofaChallengeID)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		inv, err := h.svc.Settle(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.JSON(toInvoice(inv))
	}, nil
}

func (h *invoicesHandlers) cancelInvoice(c *fiber.Ctx) (fiber.Handler, error) {
	read, err := h.svc.ReadCancel(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		inv, err := h.svc.Cancel(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.JSON(toInvoice(inv))
	}, nil
}

// publicInvoice answers anyone holding the id, rate limited per client IP.
func (h *invoicesHandlers) publicInvoice(c *fiber.Ctx) error {
	if limited := h.limitAnonymous(c); limited != nil {
		return limited
	}
	inv, err := h.svc.Public(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(invoicePublicResponse{AmountUsd: toInvoice(inv).AmountUsd, Status: string(inv.Status),
		HoldAddress: strPtr(inv.HoldAddress), ChainID: inv.ChainID})
}

func (h *invoicesHandlers) advanceInvoice(c *fiber.Ctx) error {
	var req invoiceAdvanceRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	inv, err := h.svc.Advance(c.UserContext(), principal(c), c.Params("id"), req.Seconds)
	if err != nil {
		return err
	}
	return c.JSON(toInvoice(inv))
}

func (h *invoicesHandlers) arbiterSign(c *fiber.Ctx) error {
	inv, err := h.arbiter.ArbiterSign(c.UserContext(), h.actor, strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toInvoice(inv))
}

func (h *invoicesHandlers) sendBill(c *fiber.Ctx) error {
	var req billRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	b, err := h.svc.SendBill(c.UserContext(), principal(c), req.input())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toBill(b))
}

func (h *invoicesHandlers) listInboundBills(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	list, total, err := h.svc.ListInbound(c.UserContext(), principal(c), c.Query("verification"), page)
	if err != nil {
		return err
	}
	out := billListResponse{Bills: make([]billResponse, len(list)), Total: total}
	for i, b := range list {
		out.Bills[i] = toBill(b)
	}
	return c.JSON(out)
}

func (h *invoicesHandlers) getInboundBill(c *fiber.Ctx) error {
	b, err := h.svc.GetInbound(c.UserContext(), principal(c), c.Params("invoiceId"))
	if err != nil {
		return err
	}
	return c.JSON(toBill(b))
}

func (h *invoicesHandlers) acceptBill(c *fiber.Ctx) (fiber.Handler, error) {
	var req billAcceptRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadAccept(c.UserContext(), principal(c), c.Params("invoiceId"), req.WalletID, req.TwofaChallengeID)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		b, err := h.svc.Accept(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.JSON(toBill(b))
	}, nil
}
