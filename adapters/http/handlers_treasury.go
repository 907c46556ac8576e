package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"
)

func (h *treasuryHandlers) createTreasuryAccount(c *fiber.Ctx) error {
	var req treasuryAccountRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := h.svc.CreateAccount(c.UserContext(), principal(c), req.input())
	if err != nil {
		return err
	}
	// A fresh account: buckets hold nothing yet and nothing has accrued, so the view needs no
	// chain read (a replay returns this same body).
	view, err := h.svc.NewAccountView(a)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(toTreasuryAccount(view))
}

func (h *treasuryHandlers) listTreasuryAccounts(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	views, total, err := h.svc.ListAccounts(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := treasuryAccountListResponse{Accounts: make([]treasuryAccountResponse, len(views)), Total: total}
	for i, v := range views {
		out.Accounts[i] = toTreasuryAccount(v)
	}
	return c.JSON(out)
}

func (h *treasuryHandlers) getTreasuryAccount(c *fiber.Ctx) error {
	v, err := h.svc.GetAccount(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toTreasuryAccount(v))
}

func (h *treasuryHandlers) createTreasuryRule(c *fiber.Ctx) error {
	var req treasuryRuleRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	r, err := h.svc.CreateRule(c.UserContext(), principal(c), c.Params("id"), req.input())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toTreasuryRule(r))
}

func (h *treasuryHandlers) listTreasuryRules(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	rules, total, err := h.svc.ListRules(c.UserContext(), principal(c), c.Params("id"), page)
	if err != nil {
		return err
	}
	out := treasuryRuleListResponse{Rules: make([]treasuryRuleResponse, len(rules)), Total: total}
	for i, r := range rules {
		out.Rules[i] = toTreasuryRule(r)
	}
	return c.JSON(out)
}

func (h *treasuryHandlers) patchTreasuryRule(c *fiber.Ctx) error {
	var body treasuryRulePatchBody
	if err := decodeBody(c, &body); err != nil {
		return err
	}
	patch, err := body.patch()
	if err != nil {
		return err
	}
	r, err := h.svc.UpdateRule(c.UserContext(), principal(c), c.Params("ruleId"), patch)
	if err != nil {
		return err
	}
	return c.JSON(toTreasuryRule(r))
}

func (h *treasuryHandlers) deleteTreasuryRule(c *fiber.Ctx) error {
	r, err := h.svc.DeleteRule(c.UserContext(), principal(c), c.Params("ruleId"))
	if err != nil {
		return err
	}
	return c.JSON(toTreasuryRule(r))
}

func (h *treasuryHandlers) createTreasurySweep(c *fiber.Ctx) (fiber.Handler, error) {
	var req treasurySweepRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadSweep(c.UserContext(), principal(c), c.Params("id"), treasurySweepInput(req))
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		v, err := h.svc.CreateSweep(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toTreasurySweep(v))
	}, nil
}

func (h *treasuryHandlers) listTreasurySweeps(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	sweeps, total, err := h.svc.ListSweeps(c.UserContext(), principal(c), c.Params("id"), page)
	if err != nil {
		return err
	}
	out := treasurySweepListResponse{Sweeps: make([]treasurySweepResponse, len(sweeps)), Total: total}
	for i, v := range sweeps {
		out.Sweeps[i] = toTreasurySweep(v)
	}
	return c.JSON(out)
}

func (h *treasuryHandlers) advanceTreasury(c *fiber.Ctx) (fiber.Handler, error) {
	var req treasuryAdvanceRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadAdvance(c.UserContext(), principal(c), c.Params("id"), req.Days)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		r, err := h.svc.Advance(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.JSON(treasuryAdvanceResponse{AccountID: r.Account.ID, DaysAdvanced: r.DaysAdvanced,
			ClockOffsetDays: r.Account.ClockOffsetDays, SimulatedNow: r.SimulatedNow})
	}, nil
}
