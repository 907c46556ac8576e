package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"corridor/app/agents"
	"corridor/core"
	"corridor/core/agent"
)

func (s *Server) createAgent(c *fiber.Ctx) error {
	var req agentCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := s.svc.Agents.CreateAgent(c.UserContext(), principal(c), req.Name)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toAgent(a))
}

func (s *Server) listAgents(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	list, total, err := s.svc.Agents.ListAgents(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := agentListResponse{Agents: make([]agentResponse, len(list)), Total: total}
	for i, a := range list {
		out.Agents[i] = toAgent(a)
	}
	return c.JSON(out)
}

func (s *Server) getAgent(c *fiber.Ctx) error {
	a, err := s.svc.Agents.GetAgent(c.UserContext(), principal(c), agentIDParam(c))
	if err != nil {
		return err
	}
	return c.JSON(toAgent(a))
}

func (s *Server) suspendAgent(c *fiber.Ctx) error {
	a, err := s.svc.Agents.SuspendAgent(c.UserContext(), principal(c), agentIDParam(c))
	if err != nil {
		return err
	}
	return c.JSON(toAgent(a))
}

func (s *Server) reactivateAgent(c *fiber.Ctx) error {
	a, err := s.svc.Agents.ReactivateAgent(c.UserContext(), principal(c), agentIDParam(c))
	if err != nil {
		return err
	}
	return c.JSON(toAgent(a))
}

func (s *Server) createAgentKey(c *fiber.Ctx) error {
	var req agentKeyCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	k, err := s.svc.Agents.CreateAgentKey(c.UserContext(), principal(c), agentIDParam(c),
		agents.KeyInput{Name: req.Name, Scopes: req.Scopes})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(apiKeyCreateResponse{apiKeyResponse: toAPIKey(k.Key, s.svc.Tenancy.Now()), Key: k.Plaintext})
}

func (s *Server) getAgentLimits(c *fiber.Ctx) error {
	a, err := s.svc.Agents.GetLimits(c.UserContext(), principal(c), agentIDParam(c))
	if err != nil {
		return err
	}
	return c.JSON(toAgentLimits(a.Limits))
}

func (s *Server) putAgentLimits(c *fiber.Ctx) error {
	var req agentLimitsRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	in, err := req.input(c.Body())
	if err != nil {
		return err
	}
	a, err := s.svc.Agents.PutLimits(c.UserContext(), principal(c), agentIDParam(c), in)
	if err != nil {
		return err
	}
	return c.JSON(toAgentLimits(a.Limits))
}

func (s *Server) provisionAgentWallet(c *fiber.Ctx) error {
	var req agentWalletRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	w, err := s.svc.Agents.ProvisionWallet(c.UserContext(), principal(c), agentIDParam(c), req.input())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(toWallet(w))
}

// issueAgentCard checks the agent and reads its wallet's Safe on chain outside the idempotent
// unit, then records the card inside it under the agent's row lock.
func (s *Server) issueAgentCard(c *fiber.Ctx) (fiber.Handler, error) {
	var req agentCardRequest
	patch, err := limitsPatch(c.Body(), &req, &req.cardLimitsRequest)
	if err != nil {
		return nil, err
	}
	read, err := s.svc.Agents.ReadCard(c.UserContext(), principal(c), agentIDParam(c), patch)
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

func (s *Server) agentActivity(c *fiber.Ctx) error {
	limit, err := queryInt(c, "limit", agents.DefaultActivityLimit, agent.MaxActivityLimit)
	if err != nil {
		return core.Invalid("limit", "must be an integer from 1 to 100")
	}
	if limit == 0 {
		return core.Invalid("limit", "must be an integer from 1 to 100")
	}
	page, err := s.svc.Agents.Activity(c.UserContext(), principal(c), agentIDParam(c), limit, c.Query("cursor"))
	if err != nil {
		return err
	}
	return c.JSON(toAgentActivity(page))
}

func agentIDParam(c *fiber.Ctx) string { return strings.TrimSpace(c.Params("id")) }
