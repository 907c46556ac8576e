package http

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/cards"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
)

// issueWalletCard checks the wallet and its Safe's card spend module (a chain read) outside
// the runner's unit of work, then issues and records the card inside it.
func (h *cardsHandlers) issueWalletCard(c *fiber.Ctx) (fiber.Handler, error) {
	var req cardIssueRequest
	patch, err := limitsPatch(c.Body(), &req, &req.cardLimitsRequest)
	if err != nil {
		return nil, err
	}
	if req.AgentID != nil {
		return h.issueWalletAgentCard(c, *req.AgentID, patch)
	}
	read, err := h.svc.ReadIssue(c.UserContext(), principal(c), strings.TrimSpace(c.Params("walletId")),
		cards.IssueInput{Limits: patch, AgentID: req.AgentID})
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		card, err := h.svc.Issue(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toCard(card))
	}, nil
}

// issueWalletAgentCard is POST /v1/wallets/{walletId}/cards with an agentId: the agent's card,
// by the agents' rule for it (POST /v1/agents/{id}/cards), on the agent's own wallet.
func (h *cardsHandlers) issueWalletAgentCard(c *fiber.Ctx, agentID string, patch card.LimitsPatch) (fiber.Handler, error) {
	read, err := h.svc.ReadWalletAgentCard(c.UserContext(), principal(c), strings.TrimSpace(c.Params("walletId")), agentID, patch)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		card, err := h.svc.RecordAgentCard(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toCard(card))
	}, nil
}

// issueCardholderCard validates the body and issues the card at the issuer outside the
// runner's unit of work (no outside call inside a transaction, docs/decisions/reliability.md), then records it inside.
func (h *cardsHandlers) issueCardholderCard(c *fiber.Ctx) (fiber.Handler, error) {
	var req cardholderCardRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadCardholderCard(c.UserContext(), principal(c), req.input())
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		card, err := h.svc.RecordCardholderCard(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toCard(card))
	}, nil
}

func (h *cardsHandlers) listCards(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	cards, total, err := h.svc.ListCards(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := cardListResponse{Cards: make([]cardResponse, len(cards)), Total: total}
	for i, cd := range cards {
		out.Cards[i] = toCard(cd)
	}
	return c.JSON(out)
}

func (h *cardsHandlers) getCard(c *fiber.Ctx) error {
	card, err := h.svc.GetCard(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toCard(card))
}

func (h *cardsHandlers) getCardLimits(c *fiber.Ctx) error {
	card, err := h.svc.GetCard(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toCardLimits(card))
}

func (h *cardsHandlers) putCardLimits(c *fiber.Ctx) error {
	var req cardLimitsRequest
	patch, err := limitsPatch(c.Body(), &req, &req)
	if err != nil {
		return err
	}
	card, err := h.svc.UpdateLimits(c.UserContext(), principal(c), c.Params("id"), patch)
	if err != nil {
		return err
	}
	return c.JSON(toCardLimits(card))
}

func (h *cardsHandlers) freezeCard(c *fiber.Ctx) error   { return h.setCardFrozen(c, true) }
func (h *cardsHandlers) unfreezeCard(c *fiber.Ctx) error { return h.setCardFrozen(c, false) }

func (h *cardsHandlers) setCardFrozen(c *fiber.Ctx, frozen bool) error {
	if err := decodeBody(c, &struct{}{}); err != nil {
		return err
	}
	card, err := h.svc.SetFrozen(c.UserContext(), principal(c), c.Params("id"), frozen)
	if err != nil {
		return err
	}
	return c.JSON(toCard(card))
}

// ephemeralKeysPerMinute bounds push-provisioning keys per client IP in any rolling minute
// (docs/api.md: 5 per minute per IP); every request the limit lets through counts, whatever the
// card or the issuer answers.
const ephemeralKeysPerMinute = 5

// createEphemeralKey mints the key at the issuer outside the runner's unit of work (docs/decisions/reliability.md);
// the unit only stores the answer for replays.
func (h *cardsHandlers) createEphemeralKey(c *fiber.Ctx) (fiber.Handler, error) {
	ok, wait := h.ephemeralKeys.allow("ephemeral-key-ip:"+c.IP(), time.Now())
	if !ok {
		c.Set(fiber.HeaderRetryAfter, retryAfter(wait))
		return nil, (&core.Error{Code: core.CodeRateLimited, Message: "at most 5 ephemeral keys a minute per client; retry after the Retry-After seconds"}).
			WithDetails(map[string]any{"retryAfterSeconds": retryAfter(wait)})
	}
	var req ephemeralKeyRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	card, key, err := h.svc.CreateEphemeralKey(c.UserContext(), principal(c), c.Params("id"), cards.EphemeralKeyInput{
		Platform: req.Platform, Nonce: req.Nonce, NonceSignature: req.NonceSignature, Certificates: req.Certificates})
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error { return c.Status(fiber.StatusCreated).JSON(toEphemeralKey(card, key)) }, nil
}

func (h *cardsHandlers) listCardAuthorizations(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	auths, total, err := h.svc.ListAuthorizations(c.UserContext(), principal(c), c.Params("id"), page)
	if err != nil {
		return err
	}
	out := cardAuthorizationListResponse{Authorizations: make([]cardAuthorizationResponse, len(auths)), Total: total}
	for i, a := range auths {
		out.Authorizations[i] = toCardAuthorization(a)
	}
	return c.JSON(out)
}

func (h *cardsHandlers) createCardholder(c *fiber.Ctx) error {
	var req cardholderRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	holder, err := h.svc.CreateCardholder(c.UserContext(), principal(c), req.Name, req.Email)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toCardholder(holder))
}

func (h *cardsHandlers) listCardholders(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	holders, total, err := h.svc.ListCardholders(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := cardholderListResponse{Cardholders: make([]cardholderResponse, len(holders)), Total: total}
	for i, holder := range holders {
		out.Cardholders[i] = toCardholder(holder)
	}
	return c.JSON(out)
}

func (h *cardsHandlers) sandboxAuthorize(c *fiber.Ctx) error {
	var req cardAuthorizationRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := h.svc.Authorize(c.UserContext(), principal(c), c.Params("id"), cards.AuthorizeInput{
		AmountUsd: req.AmountUSD, MCC: req.MCC, MerchantName: req.MerchantName, Counterparty: req.Counterparty})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toCardAuthorization(a))
}

func (h *cardsHandlers) sandboxCapture(c *fiber.Ctx) error {
	var req cardCaptureRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := h.svc.Capture(c.UserContext(), principal(c), c.Params("id"), cards.CaptureInput{AmountUsd: req.AmountUSD})
	if err != nil {
		return err
	}
	return c.JSON(toCardAuthorization(a))
}

func (h *cardsHandlers) sandboxReverse(c *fiber.Ctx) error {
	if err := decodeBody(c, &struct{}{}); err != nil {
		return err
	}
	a, err := h.svc.Reverse(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toCardAuthorization(a))
}
