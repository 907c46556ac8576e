package http

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/agents"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
)

func (h *agentsHandlers) createAgent(c *fiber.Ctx) error {
	var req agentCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := h.svc.CreateAgent(c.UserContext(), principal(c), req.Name)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toAgent(a))
}

func (h *agentsHandlers) listAgents(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	list, total, err := h.svc.ListAgents(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := agentListResponse{Agents: make([]agentResponse, len(list)), Total: total}
	for i, a := range list {
		out.Agents[i] = toAgent(a)
	}
	return c.JSON(out)
}

func (h *agentsHandlers) getAgent(c *fiber.Ctx) error {
	a, err := h.svc.GetAgent(c.UserContext(), principal(c), agentIDParam(c))
	if err != nil {
		return err
	}
	return c.JSON(toAgent(a))
}

func (h *agentsHandlers) suspendAgent(c *fiber.Ctx) error {
	a, err := h.svc.SuspendAgent(c.UserContext(), principal(c), agentIDParam(c))
	if err != nil {
		return err
	}
	return c.JSON(toAgent(a))
}

func (h *agentsHandlers) reactivateAgent(c *fiber.Ctx) error {
	a, err := h.svc.ReactivateAgent(c.UserContext(), principal(c), agentIDParam(c))
	if err != nil {
		return err
	}
	return c.JSON(toAgent(a))
}

func (h *agentsHandlers) createAgentKey(c *fiber.Ctx) error {
	var req agentKeyCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	in := agents.KeyInput{Name: req.Name, Scopes: req.Scopes}
	if req.ExpiresAt != "" {
		t, err := time.Parse(time.RFC3339, req.ExpiresAt)
		if err != nil {
			return core.Invalid("expiresAt", "must be an RFC 3339 timestamp such as 2027-01-31T00:00:00Z")
		}
		t = t.UTC().Truncate(time.Microsecond)
		in.ExpiresAt = &t
	}
	k, err := h.svc.CreateAgentKey(c.UserContext(), principal(c), agentIDParam(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(apiKeyCreateResponse{apiKeyResponse: toAPIKey(k.Key, h.now()), Key: k.Plaintext})
}

func (h *agentsHandlers) getAgentLimits(c *fiber.Ctx) error {
	a, err := h.svc.GetLimits(c.UserContext(), principal(c), agentIDParam(c))
	if err != nil {
		return err
	}
	return c.JSON(toAgentLimits(a.Limits))
}

func (h *agentsHandlers) putAgentLimits(c *fiber.Ctx) error {
	var req agentLimitsRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	in, err := req.input(c.Body())
	if err != nil {
		return err
	}
	a, err := h.svc.PutLimits(c.UserContext(), principal(c), agentIDParam(c), in)
	if err != nil {
		return err
	}
	return c.JSON(toAgentLimits(a.Limits))
}

func (h *agentsHandlers) provisionAgentWallet(c *fiber.Ctx) error {
	var req agentWalletRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	w, err := h.svc.ProvisionWallet(c.UserContext(), principal(c), agentIDParam(c), req.input())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(toWallet(w))
}

// issueAgentCard checks the agent and reads its wallet's Safe on chain outside the idempotent
// unit, then records the card inside it under the agent's row lock.
func (h *agentsHandlers) issueAgentCard(c *fiber.Ctx) (fiber.Handler, error) {
	var req agentCardRequest
	patch, err := limitsPatch(c.Body(), &req, &req.cardLimitsRequest)
	if err != nil {
		return nil, err
	}
	if h.cards == nil {
		return nil, core.E(core.CodeFeatureNotAvailable, "cards are not available in this deployment")
	}
	read, err := h.cards.ReadAgentCard(c.UserContext(), principal(c), agentIDParam(c), patch)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		card, err := h.cards.RecordAgentCard(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toCard(card))
	}, nil
}

func (h *agentsHandlers) agentActivity(c *fiber.Ctx) error {
	limit, err := queryInt(c, "limit", agents.DefaultActivityLimit, agent.MaxActivityLimit)
	if err != nil {
		return core.Invalid("limit", "must be an integer from 1 to 100")
	}
	if limit == 0 {
		return core.Invalid("limit", "must be an integer from 1 to 100")
	}
	page, err := h.svc.Activity(c.UserContext(), principal(c), agentIDParam(c), limit, c.Query("cursor"))
	if err != nil {
		return err
	}
	return c.JSON(toAgentActivity(page))
}

func agentIDParam(c *fiber.Ctx) string { return strings.TrimSpace(c.Params("id")) }
