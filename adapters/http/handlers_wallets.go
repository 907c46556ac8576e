package http

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"corridor/app/wallets"
	"corridor/core"
)

func (s *Server) createWallet(c *fiber.Ctx) error {
	var req walletCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	w, err := s.svc.Wallets.CreateWallet(c.UserContext(), principal(c), req.input())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toWallet(w))
}

func (s *Server) listWallets(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	list, total, err := s.svc.Wallets.ListWallets(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := walletListResponse{Wallets: make([]walletResponse, len(list)), Total: total}
	for i, w := range list {
		out.Wallets[i] = toWallet(w)
	}
	return c.JSON(out)
}

func (s *Server) getWallet(c *fiber.Ctx) error {
	v, err := s.svc.Wallets.GetWallet(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toWalletDetail(v))
}

func (s *Server) fundWallet(c *fiber.Ctx) error {
	var req fundRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	d, err := s.svc.Wallets.FundWallet(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")),
		wallets.FundInput{Asset: req.Asset, Amount: req.Amount})
	if err != nil {
		return withRetryAfter(c, err)
	}
	return c.Status(fiber.StatusCreated).JSON(toDrip(d))
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

func (s *Server) listDrips(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	drips, total, err := s.svc.Wallets.ListDrips(c.UserContext(), principal(c), c.Query("walletId"), page)
	if err != nil {
		return err
	}
	out := dripListResponse{Drips: make([]dripResponse, len(drips)), Total: total}
	for i, d := range drips {
		out.Drips[i] = toDrip(d)
	}
	return c.JSON(out)
}

func (s *Server) getDrip(c *fiber.Ctx) error {
	d, err := s.svc.Wallets.GetDrip(c.UserContext(), principal(c), strings.TrimSpace(c.Params("dripId")))
	if err != nil {
		return err
	}
	return c.JSON(toDrip(d))
}

func (s *Server) putHandle(c *fiber.Ctx) error {
	var req handlePutRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	v, err := s.svc.Wallets.PutHandle(c.UserContext(), principal(c),
		wallets.PutHandleInput{Handle: req.Handle, WalletID: req.WalletID, DisplayName: req.DisplayName})
	if err != nil {
		return err
	}
	return c.JSON(toHandleInfo(v))
}
