package agents

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
)

// CreateAgent creates an ACTIVE agent with no limits, no wallet and no key.
func (s *Service) CreateAgent(ctx context.Context, p auth.Principal, name string) (agent.Agent, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeAgentsManage); err != nil {
		return agent.Agent{}, err
	}
	if err := auth.AuthorizeGrant(p, tenant.HoldingOf(p), auth.Grant{Kind: auth.GrantAgent, ToAgent: true}); err != nil {
		return agent.Agent{}, err
	}
	n, err := agent.ValidateName(name)
	if err != nil {
		return agent.Agent{}, err
	}
	now := s.clock.Now().UTC()
	a := agent.Agent{ID: core.NewID(core.PrefixAgent), TenantID: p.TenantID, Environment: p.Environment, Name: n,
		Status: agent.StatusActive, CreatedAt: now, UpdatedAt: now}
	err = s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if err := tx.Agents().CreateAgent(ctx, a); err != nil {
			return err
		}
		return kernel.RecordEvent(ctx, tx, a.TenantID, a.Environment, "agent", a.ID, "CREATED", 0, now,
			map[string]any{"status": string(a.Status), "name": a.Name})
	})
	return a, err
}

// ListAgents lists the caller's agents in creation order.
func (s *Service) ListAgents(ctx context.Context, p auth.Principal, page ports.Page) ([]agent.Agent, int, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeAgentsRead); err != nil {
		return nil, 0, err
	}
	var list []agent.Agent
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		list, total, err = tx.Agents().ListAgents(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return list, total, err
}

// GetAgent returns one agent of the caller; another tenant's agent is AGENT_NOT_FOUND.
func (s *Service) GetAgent(ctx context.Context, p auth.Principal, id string) (agent.Agent, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeAgentsRead); err != nil {
		return agent.Agent{}, err
	}
	var a agent.Agent
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		a, err = tx.Agents().FindAgent(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		return err
	})
	return a, err
}

// SuspendAgent stops the agent: its keys are declined with AGENT_SUSPENDED on their next
// request. Suspending a suspended agent answers it unchanged.
func (s *Service) SuspendAgent(ctx context.Context, p auth.Principal, id string) (agent.Agent, error) {
	return s.transition(ctx, p, id, agent.ActionSuspend)
}

// ReactivateAgent lets the agent's keys act again. Reactivating an active agent answers it
// unchanged.
func (s *Service) ReactivateAgent(ctx context.Context, p auth.Principal, id string) (agent.Agent, error) {
	return s.transition(ctx, p, id, agent.ActionReactivate)
}

func (s *Service) transition(ctx context.Context, p auth.Principal, id string, action agent.Action) (agent.Agent, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeAgentsManage); err != nil {
		return agent.Agent{}, err
	}
	var a agent.Agent
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		locked, err := tx.Agents().LockAgent(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		to, err := agent.Next(locked.Status, action)
		if err != nil {
			return err
		}
		a = locked
		if to == locked.Status {
			return nil
		}
		now := s.clock.Now().UTC()
		a.Status, a.UpdatedAt = to, now
		a.SuspendedAt = nil
		if to == agent.StatusSuspended {
			a.SuspendedAt = &now
		}
		if err := tx.Agents().UpdateAgent(ctx, a); err != nil {
			return err
		}
		return kernel.RecordEvent(ctx, tx, a.TenantID, a.Environment, "agent", a.ID, agentEventStatus(to), 0, now, map[string]any{"status": string(to)})
	})
	return a, err
}

// agentEventStatus names the agent event of a transition: agent.suspended or agent.reactivated
// (agent.created when it is made, agent.limits_updated on every change of its caps).
func agentEventStatus(to agent.Status) string {
	if to == agent.StatusSuspended {
		return "SUSPENDED"
	}
	return "REACTIVATED"
}

// RequireActiveAgent is the authentication layer's check of an agent key: AGENT_SUSPENDED
// while the agent is suspended. It runs in the caller's unit of work when there is one.
func (s *Service) RequireActiveAgent(ctx context.Context, tenantID string, env core.Environment, agentID string) error {
	return s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		a, err := tx.Agents().FindAgent(ctx, tenantID, env, agentID)
		if err != nil {
			return err
		}
		return a.RequireActive()
	})
}

// RequireAgent answers whether an agent exists in the tenant and environment (policy
// attachments to an agent subject); another tenant's agent is AGENT_NOT_FOUND.
func (s *Service) RequireAgent(ctx context.Context, tenantID string, env core.Environment, agentID string) error {
	return s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		_, err := tx.Agents().FindAgent(ctx, tenantID, env, agentID)
		return err
	})
}
