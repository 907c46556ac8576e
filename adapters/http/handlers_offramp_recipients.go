package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/recipients"
	"github.com/corridorhq/corridor/core"
)

func (h *recipientsHandlers) createPhoneAlias(c *fiber.Ctx) error {
	var req phoneAliasCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := h.svc.CreatePhoneAlias(c.UserContext(), principal(c), recipients.CreateAliasInput{Phone: req.Phone, ClientIP: c.IP()})
	if err != nil {
		return withRetryAfter(c, err)
	}
	return c.Status(fiber.StatusCreated).JSON(toPhoneAlias(a))
}

func (h *recipientsHandlers) verifyPhoneAlias(c *fiber.Ctx) error {
	var req phoneAliasVerifyRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := h.svc.VerifyPhoneAlias(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.Code, c.IP())
	if err != nil {
		return withRetryAfter(c, err)
	}
	return c.JSON(toPhoneAlias(a))
}

func (h *recipientsHandlers) reverifyPhoneAlias(c *fiber.Ctx) error {
	a, err := h.svc.ReverifyPhoneAlias(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), c.IP())
	if err != nil {
		return withRetryAfter(c, err)
	}
	return c.JSON(toPhoneAlias(a))
}

func (h *recipientsHandlers) listPhoneAliases(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	as, total, err := h.svc.ListPhoneAliases(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := phoneAliasListResponse{PhoneAliases: make([]phoneAliasResponse, len(as)), Total: total}
	for i, a := range as {
		out.PhoneAliases[i] = toPhoneAlias(a)
	}
	return c.JSON(out)
}

func (h *recipientsHandlers) listSandboxSMS(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	ms, total, err := h.svc.ListSandboxSMS(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	return c.JSON(toSMSList(ms, total))
}

func (h *recipientsHandlers) listCredentials(c *fiber.Ctx) error {
	cred, ok, err := h.svc.GetCredential(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	return c.JSON(credentialListResponse{Credentials: []credentialResponse{toCredential(cred, ok)}})
}

func (h *recipientsHandlers) setSandboxCredential(c *fiber.Ctx) error {
	var req credentialSetRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	if req.Type != "" && req.Type != "BUSINESS_IDENTITY" {
		return core.Invalid("type", "must be BUSINESS_IDENTITY")
	}
	cred, err := h.svc.SetSandboxCredential(c.UserContext(), principal(c), req.Status)
	if err != nil {
		return err
	}
	return c.JSON(toCredential(cred, true))
}

func (h *recipientsHandlers) createDestination(c *fiber.Ctx) error {
	var req destinationCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	d, err := h.svc.CreateDestination(c.UserContext(), principal(c), req.input())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toDestination(d))
}

func (h *recipientsHandlers) listDestinations(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	ds, total, err := h.svc.ListDestinations(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := destinationListResponse{PayoutDestinations: make([]destinationResponse, len(ds)), Total: total}
	for i, d := range ds {
		out.PayoutDestinations[i] = toDestination(d)
	}
	return c.JSON(out)
}

func (h *recipientsHandlers) getDestination(c *fiber.Ctx) error {
	d, err := h.svc.GetDestination(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toDestination(d))
}

// heldPrepared prepares the screening verdicts of the caller's held payments, outside any
// transaction, for a change that re-evaluates them in the runner's unit (a verified alias, a
// credential, a destination), then applies handler.
func (h *recipientsHandlers) heldPrepared(handler fiber.Handler) prepare {
	return func(c *fiber.Ctx) (fiber.Handler, error) {
		if err := h.svc.PrepareHeld(c.UserContext(), principal(c)); err != nil {
			return nil, err
		}
		return handler, nil
	}
}
