package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/faucet"
)

func (h *faucetHandlers) fundWallet(c *fiber.Ctx) error {
	var req fundRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	d, err := h.svc.FundWallet(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")),
		faucet.FundInput{Asset: req.Asset, Amount: req.Amount})
	if err != nil {
		return withRetryAfter(c, err)
	}
	return c.Status(fiber.StatusCreated).JSON(toDrip(d))
}

func (h *faucetHandlers) listDrips(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	drips, total, err := h.svc.ListDrips(c.UserContext(), principal(c), c.Query("walletId"), page)
	if err != nil {
		return err
	}
	out := dripListResponse{Drips: make([]dripResponse, len(drips)), Total: total}
	for i, d := range drips {
		out.Drips[i] = toDrip(d)
	}
	return c.JSON(out)
}

func (h *faucetHandlers) getDrip(c *fiber.Ctx) error {
	d, err := h.svc.GetDrip(c.UserContext(), principal(c), strings.TrimSpace(c.Params("dripId")))
	if err != nil {
		return err
	}
	return c.JSON(toDrip(d))
}
