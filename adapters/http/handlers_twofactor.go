package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	twofactorapp "corridor/app/twofactor"
)

func (s *Server) createContact(c *fiber.Ctx) error {
	var req contactCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	contact, err := s.svc.TwoFactor.CreateContact(c.UserContext(), principal(c), twofactorapp.ContactInput{Address: req.Address, Label: req.Label, ChainID: req.ChainID})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toContact(contact, s.svc.TwoFactor.CoolingOff()))
}

func (s *Server) listContacts(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	contacts, total, err := s.svc.TwoFactor.ListContacts(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := contactListResponse{Contacts: make([]contactResponse, len(contacts)), Total: total}
	for i, ct := range contacts {
		out.Contacts[i] = toContact(ct, s.svc.TwoFactor.CoolingOff())
	}
	return c.JSON(out)
}

func (s *Server) deleteContact(c *fiber.Ctx) error {
	contact, err := s.svc.TwoFactor.DeleteContact(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toContact(contact, s.svc.TwoFactor.CoolingOff()))
}

func (s *Server) enrollFactor(c *fiber.Ctx) error {
	var req factorCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	e, err := s.svc.TwoFactor.EnrollFactor(c.UserContext(), principal(c), req.Label, req.TwofaChallengeID)
	if err != nil {
		return err
	}
	f := e.Factor
	return c.Status(fiber.StatusCreated).JSON(factorEnrollResponse{ID: f.ID, Type: f.Type, Label: f.Label, Status: string(f.Status),
		CreatedAt: f.CreatedAt, VerifiedAt: f.VerifiedAt, Secret: e.Secret, OTPAuthURI: e.OTPAuthURI})
}

// deleteFactor removes a factor; the step-up challenge comes as ?twofaChallengeId= (a DELETE
// has no body).
func (s *Server) deleteFactor(c *fiber.Ctx) error {
	f, err := s.svc.TwoFactor.DeleteFactor(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), strings.TrimSpace(c.Query("twofaChallengeId")))
	if err != nil {
		return err
	}
	return c.JSON(toFactor(f))
}

func (s *Server) verifyFactor(c *fiber.Ctx) error {
	var req codeRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	f, err := s.svc.TwoFactor.VerifyFactor(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.Code)
	if err != nil {
		return err
	}
	return c.JSON(toFactor(f))
}

func (s *Server) listFactors(c *fiber.Ctx) error {
	factors, err := s.svc.TwoFactor.ListFactors(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	out := factorListResponse{Factors: make([]factorResponse, len(factors))}
	for i, f := range factors {
		out.Factors[i] = toFactor(f)
	}
	return c.JSON(out)
}

func (s *Server) getTwoFactorSettings(c *fiber.Ctx) error {
	st, err := s.svc.TwoFactor.Settings(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	return c.JSON(toTwoFactorSettings(st, s.svc.TwoFactor.CoolingOff()))
}

func (s *Server) putTwoFactorSettings(c *fiber.Ctx) error {
	var req twoFactorSettingsRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	st, err := s.svc.TwoFactor.PutSettings(c.UserContext(), principal(c), twofactorapp.SettingsInput{
		ApprovalAboveValue: req.ApprovalAboveUSD, ApproveNewPayees: req.ApproveNewPayees, RequireSavedPayees: req.RequireSavedPayees,
		TwofaChallengeID: req.TwofaChallengeID})
	if err != nil {
		return err
	}
	return c.JSON(toTwoFactorSettings(st, s.svc.TwoFactor.CoolingOff()))
}

func (s *Server) verifyChallenge(c *fiber.Ctx) error {
	var req codeRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	ch, err := s.svc.TwoFactor.VerifyChallenge(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.Code)
	if err != nil {
		return err
	}
	return c.JSON(toChallenge(ch))
}
