package http

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	cardsapp "corridor/app/cards"
	"corridor/core"
	"corridor/core/card"
)

// issueWalletCard checks the wallet and its Safe's card spend module (a chain read) outside
// the idempotent unit, then issues and records the card inside it.
func (s *Server) issueWalletCard(c *fiber.Ctx) (fiber.Handler, error) {
	var req cardIssueRequest
	patch, err := limitsPatch(c.Body(), &req, &req.cardLimitsRequest)
	if err != nil {
		return nil, err
	}
	if req.AgentID != nil {
		return s.issueWalletAgentCard(c, *req.AgentID, patch)
	}
	read, err := s.svc.Cards.ReadIssue(c.UserContext(), principal(c), strings.TrimSpace(c.Params("walletId")),
		cardsapp.IssueInput{Limits: patch, AgentID: req.AgentID})
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		card, err := s.svc.Cards.Issue(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toCard(card))
	}, nil
}

// issueWalletAgentCard is POST /v1/wallets/{walletId}/cards with an agentId: the agent's card,
// by the agents capability's rules (POST /v1/agents/{id}/cards), on the agent's own wallet.
func (s *Server) issueWalletAgentCard(c *fiber.Ctx, agentID string, patch card.LimitsPatch) (fiber.Handler, error) {
	read, err := s.svc.Agents.ReadWalletCard(c.UserContext(), principal(c), strings.TrimSpace(c.Params("walletId")), agentID, patch)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		card, err := s.svc.Agents.IssueCard(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toCard(card))
	}, nil
}

// issueCardholderCard validates the body and issues the card at the issuer outside the
// idempotent unit (no outside call inside a transaction, DESIGN.md D22), then records it inside.
func (s *Server) issueCardholderCard(c *fiber.Ctx) (fiber.Handler, error) {
	var req cardholderCardRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := s.svc.Cards.ReadCardholderCard(c.UserContext(), principal(c), req.input())
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		card, err := s.svc.Cards.RecordCardholderCard(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toCard(card))
	}, nil
}

func (s *Server) listCards(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	cards, total, err := s.svc.Cards.ListCards(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := cardListResponse{Cards: make([]cardResponse, len(cards)), Total: total}
	for i, cd := range cards {
		out.Cards[i] = toCard(cd)
	}
	return c.JSON(out)
}

func (s *Server) getCard(c *fiber.Ctx) error {
	card, err := s.svc.Cards.GetCard(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toCard(card))
}

func (s *Server) getCardLimits(c *fiber.Ctx) error {
	card, err := s.svc.Cards.GetCard(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toCardLimits(card))
}

func (s *Server) putCardLimits(c *fiber.Ctx) error {
	var req cardLimitsRequest
	patch, err := limitsPatch(c.Body(), &req, &req)
	if err != nil {
		return err
	}
	card, err := s.svc.Cards.UpdateLimits(c.UserContext(), principal(c), c.Params("id"), patch)
	if err != nil {
		return err
	}
	return c.JSON(toCardLimits(card))
}

func (s *Server) freezeCard(c *fiber.Ctx) error   { return s.setCardFrozen(c, true) }
func (s *Server) unfreezeCard(c *fiber.Ctx) error { return s.setCardFrozen(c, false) }

func (s *Server) setCardFrozen(c *fiber.Ctx, frozen bool) error {
	if err := decodeBody(c, &struct{}{}); err != nil {
		return err
	}
	card, err := s.svc.Cards.SetFrozen(c.UserContext(), principal(c), c.Params("id"), frozen)
	if err != nil {
		return err
	}
	return c.JSON(toCard(card))
}

// ephemeralKeysPerMinute bounds push-provisioning keys per client IP in any rolling minute
// (SPEC.md: 5 per minute per IP); every request the limit lets through counts, whatever the
// card or the issuer answers.
const ephemeralKeysPerMinute = 5

// createEphemeralKey mints the key at the issuer outside the idempotent unit (DESIGN.md D22);
// the unit only stores the answer for replays.
func (s *Server) createEphemeralKey(c *fiber.Ctx) (fiber.Handler, error) {
	ok, wait := s.ephemeralKeyLimiter.allow("ephemeral-key-ip:"+c.IP(), time.Now())
	if !ok {
		c.Set(fiber.HeaderRetryAfter, retryAfter(wait))
		return nil, (&core.Error{Code: core.CodeRateLimited, Message: "at most 5 ephemeral keys a minute per client; retry after the Retry-After seconds"}).
			WithDetails(map[string]any{"retryAfterSeconds": retryAfter(wait)})
	}
	var req ephemeralKeyRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	card, key, err := s.svc.Cards.CreateEphemeralKey(c.UserContext(), principal(c), c.Params("id"), cardsapp.EphemeralKeyInput{
		Platform: req.Platform, Nonce: req.Nonce, NonceSignature: req.NonceSignature, Certificates: req.Certificates})
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error { return c.Status(fiber.StatusCreated).JSON(toEphemeralKey(card, key)) }, nil
}

func (s *Server) listCardAuthorizations(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	auths, total, err := s.svc.Cards.ListAuthorizations(c.UserContext(), principal(c), c.Params("id"), page)
	if err != nil {
		return err
	}
	out := cardAuthorizationListResponse{Authorizations: make([]cardAuthorizationResponse, len(auths)), Total: total}
	for i, a := range auths {
		out.Authorizations[i] = toCardAuthorization(a)
	}
	return c.JSON(out)
}

func (s *Server) createCardholder(c *fiber.Ctx) error {
	var req cardholderRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	h, err := s.svc.Cards.CreateCardholder(c.UserContext(), principal(c), req.Name, req.Email)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toCardholder(h))
}

func (s *Server) listCardholders(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	holders, total, err := s.svc.Cards.ListCardholders(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := cardholderListResponse{Cardholders: make([]cardholderResponse, len(holders)), Total: total}
	for i, h := range holders {
		out.Cardholders[i] = toCardholder(h)
	}
	return c.JSON(out)
}

func (s *Server) sandboxAuthorize(c *fiber.Ctx) error {
	var req cardAuthorizationRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := s.svc.Cards.Authorize(c.UserContext(), principal(c), c.Params("id"), cardsapp.AuthorizeInput{
		AmountUsd: req.AmountUSD, MCC: req.MCC, MerchantName: req.MerchantName, Counterparty: req.Counterparty})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toCardAuthorization(a))
}

func (s *Server) sandboxCapture(c *fiber.Ctx) error {
	var req cardCaptureRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := s.svc.Cards.Capture(c.UserContext(), principal(c), c.Params("id"), cardsapp.CaptureInput{AmountUsd: req.AmountUSD})
	if err != nil {
		return err
	}
	return c.JSON(toCardAuthorization(a))
}

func (s *Server) sandboxReverse(c *fiber.Ctx) error {
	if err := decodeBody(c, &struct{}{}); err != nil {
		return err
	}
	a, err := s.svc.Cards.Reverse(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toCardAuthorization(a))
}
