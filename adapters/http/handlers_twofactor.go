package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/twofactors"
)

func (h *twoFactorHandlers) createContact(c *fiber.Ctx) error {
	var req contactCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	contact, err := h.svc.CreateContact(c.UserContext(), principal(c), twofactors.ContactInput{Address: req.Address, Label: req.Label, ChainID: req.ChainID})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toContact(contact, h.svc.CoolingOff()))
}

func (h *twoFactorHandlers) listContacts(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	contacts, total, err := h.svc.ListContacts(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := contactListResponse{Contacts: make([]contactResponse, len(contacts)), Total: total}
	for i, ct := range contacts {
		out.Contacts[i] = toContact(ct, h.svc.CoolingOff())
	}
	return c.JSON(out)
}

func (h *twoFactorHandlers) deleteContact(c *fiber.Ctx) error {
	contact, err := h.svc.DeleteContact(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toContact(contact, h.svc.CoolingOff()))
}

func (h *twoFactorHandlers) enrollFactor(c *fiber.Ctx) error {
	var req factorCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	e, err := h.svc.EnrollFactor(c.UserContext(), principal(c), req.Label, req.TwofaChallengeID)
	if err != nil {
		return err
	}
	f := e.Factor
	return c.Status(fiber.StatusCreated).JSON(factorEnrollResponse{ID: f.ID, Type: f.Type, Label: f.Label, Status: string(f.Status),
		CreatedAt: f.CreatedAt, VerifiedAt: f.VerifiedAt, Secret: e.Secret, OTPAuthURI: e.OTPAuthURI})
}

// deleteFactor removes a factor; the step-up challenge comes as ?twofaChallengeId= (a DELETE
// has no body).
func (h *twoFactorHandlers) deleteFactor(c *fiber.Ctx) error {
	f, err := h.svc.DeleteFactor(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), strings.TrimSpace(c.Query("twofaChallengeId")))
	if err != nil {
		return err
	}
	return c.JSON(toFactor(f))
}

func (h *twoFactorHandlers) verifyFactor(c *fiber.Ctx) error {
	var req factorVerifyRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	f, err := h.svc.VerifyFactor(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.Code, strings.TrimSpace(req.TwofaChallengeID))
	if err != nil {
		return err
	}
	return c.JSON(toFactor(f))
}

func (h *twoFactorHandlers) listFactors(c *fiber.Ctx) error {
	factors, err := h.svc.ListFactors(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	out := factorListResponse{Factors: make([]factorResponse, len(factors))}
	for i, f := range factors {
		out.Factors[i] = toFactor(f)
	}
	return c.JSON(out)
}

func (h *twoFactorHandlers) getTwoFactorSettings(c *fiber.Ctx) error {
	st, err := h.svc.Settings(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	return c.JSON(toTwoFactorSettings(st, h.svc.CoolingOff()))
}

func (h *twoFactorHandlers) putTwoFactorSettings(c *fiber.Ctx) error {
	var req twoFactorSettingsRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	st, err := h.svc.PutSettings(c.UserContext(), principal(c), twofactors.SettingsInput{
		ApprovalAboveValue: req.ApprovalAboveUSD, ApproveNewPayees: req.ApproveNewPayees, RequireSavedPayees: req.RequireSavedPayees,
		TwofaChallengeID: req.TwofaChallengeID})
	if err != nil {
		return err
	}
	return c.JSON(toTwoFactorSettings(st, h.svc.CoolingOff()))
}

func (h *twoFactorHandlers) verifyChallenge(c *fiber.Ctx) error {
	var req codeRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	ch, err := h.svc.VerifyChallenge(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.Code)
	if err != nil {
		return err
	}
	return c.JSON(toChallenge(ch))
}
