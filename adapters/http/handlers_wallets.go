package http

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/wallets"
	"github.com/corridorhq/corridor/core"
)

func (h *walletsHandlers) createWallet(c *fiber.Ctx) error {
	var req walletCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	w, err := h.svc.CreateWallet(c.UserContext(), principal(c), req.input())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toWallet(w))
}

func (h *walletsHandlers) listWallets(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	list, total, err := h.svc.ListWallets(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := walletListResponse{Wallets: make([]walletResponse, len(list)), Total: total}
	for i, w := range list {
		out.Wallets[i] = toWallet(w)
	}
	return c.JSON(out)
}

func (h *walletsHandlers) getWallet(c *fiber.Ctx) error {
	v, err := h.svc.GetWallet(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toWalletDetail(v))
}

// withRetryAfter sets Retry-After from a RATE_LIMITED error's details.retryAfterSeconds (a
// string or a whole number of seconds).
func withRetryAfter(c *fiber.Ctx, err error) error {
	var de *core.Error
	if errors.As(err, &de) && de.Code == core.CodeRateLimited {
		switch secs := de.Details["retryAfterSeconds"].(type) {
		case string:
			c.Set(fiber.HeaderRetryAfter, secs)
		case int:
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
		}
	}
	return err
}

func (h *walletsHandlers) putHandle(c *fiber.Ctx) error {
	var req handlePutRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	v, err := h.svc.PutHandle(c.UserContext(), principal(c),
		wallets.PutHandleInput{Handle: req.Handle, WalletID: req.WalletID, DisplayName: req.DisplayName})
	if err != nil {
		return err
	}
	return c.JSON(toHandleInfo(v))
}
