package http

import (
	"encoding/json"

	"github.com/gofiber/fiber/v2"
)

func (h *rampsHandlers) createRamp(c *fiber.Ctx) (fiber.Handler, error) {
	var req rampRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadRamp(c.UserContext(), principal(c), rampInput(req))
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		v, err := h.svc.CreateRamp(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toRamp(v))
	}, nil
}

// completeRamp answers a new on-ramp complete: after its unit of work committed, it waits for
// the credit's mint (ramps.Service.CompleteOnRamp) and answers CONFIRMED with the txHash. If
// the ramp cannot be read back, the committed answer stands.
func (h *rampsHandlers) completeRamp(c *fiber.Ctx) error {
	var created rampResponse
	if err := json.Unmarshal(c.Response().Body(), &created); err != nil || created.Direction != "ON" {
		return nil
	}
	v, err := h.svc.CompleteOnRamp(c.UserContext(), principal(c), created.RampID)
	if err != nil {
		return nil
	}
	return c.Status(fiber.StatusCreated).JSON(toRamp(v))
}

func (h *rampsHandlers) listRamps(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	views, total, err := h.svc.ListRamps(c.UserContext(), principal(c), c.Query("walletId"), page)
	if err != nil {
		return err
	}
	out := rampListResponse{Ramps: make([]rampResponse, len(views)), Total: total}
	for i, v := range views {
		out.Ramps[i] = toRamp(v)
	}
	return c.JSON(out)
}

func (h *rampsHandlers) getRamp(c *fiber.Ctx) error {
	v, err := h.svc.GetRamp(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toRamp(v))
}
