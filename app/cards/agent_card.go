package cards

import (
	"context"
	"fmt"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ports"
)

// An agent's card is a card bound to an agent (card.AgentID): this capability issues it, and
// reads the agent through the agents' repository its unit of work already lists, applying the
// agents' rule for it (agent.CanHaveCard). So agents and cards do not point at each other:
// cards takes the agents' card budget, and nothing in agents calls cards.

// agentSandboxMessage refuses LIVE callers as every agents route does: agents are complete
// only with their card, which is issued in the sandbox only.
const agentSandboxMessage = "agents are sandbox only: use a TEST key"

// AgentCardRead is what issuing an agent's card checked before its unit of work.
type AgentCardRead struct {
	tenantID, agentID, walletID string
	env                         core.Environment
	issue                       IssueRead
	limits                      card.LimitsPatch
}

// ReadAgentCard checks, outside any unit of work, that the agent can get a card (no card yet:
// AGENT_CARD_EXISTS; ACTIVE: AGENT_SUSPENDED; a wallet: AGENT_WALLET_REQUIRED), validates the
// limits and reads the wallet's Safe on chain (WALLET_NOT_DEPLOYED, CARD_MODULE_NOT_ENABLED),
// then issues the card at the issuer. Card issuance is sandbox only.
func (s *Service) ReadAgentCard(ctx context.Context, p auth.Principal, agentID string, limits card.LimitsPatch) (AgentCardRead, error) {
	return s.readAgentCard(ctx, p, agentID, "", limits)
}

// ReadWalletAgentCard is ReadAgentCard for a card issued on a named wallet (an agentId on
// POST /v1/wallets/{walletId}/cards): the same rules, and the wallet must be the agent's own
// (an agent's card spends only from its wallet), else VALIDATION_FAILED naming agentId.
func (s *Service) ReadWalletAgentCard(ctx context.Context, p auth.Principal, walletID, agentID string, limits card.LimitsPatch) (AgentCardRead, error) {
	if strings.TrimSpace(agentID) == "" {
		return AgentCardRead{}, core.Invalid("agentId", "must be the id of one of your agents (agt_…), or null")
	}
	if strings.TrimSpace(walletID) == "" {
		return AgentCardRead{}, core.Invalid("walletId", "is required")
	}
	return s.readAgentCard(ctx, p, agentID, strings.TrimSpace(walletID), limits)
}

// readAgentCard checks what ReadAgentCard says; onWallet, when set, must be the agent's wallet.
func (s *Service) readAgentCard(ctx context.Context, p auth.Principal, id, onWallet string, limits card.LimitsPatch) (AgentCardRead, error) {
	if err := kernel.RequireSandboxScope(p, agentSandboxMessage, auth.ScopeAgentsManage, auth.ScopeCardsIssue); err != nil {
		return AgentCardRead{}, err
	}
	if err := kernel.RequireSandbox(p, "card issuance is sandbox only"); err != nil {
		return AgentCardRead{}, err
	}
	var a agent.Agent
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		if a, err = tx.Agents().FindAgent(ctx, p.TenantID, p.Environment, strings.TrimSpace(id)); err != nil {
			return err
		}
		if err := canHaveCard(ctx, tx, a); err != nil {
			return err
		}
		if onWallet != "" && a.WalletID != onWallet {
			return core.Invalid("agentId", fmt.Sprintf("agent %s spends from its own wallet %s: issue its card there (POST /v1/wallets/%s/cards) or on POST /v1/agents/%s/cards",
				a.ID, a.WalletID, a.WalletID, a.ID))
		}
		return nil
	})
	if err != nil {
		return AgentCardRead{}, err
	}
	if err := kernel.RequireTenantScope(p, auth.ScopeCardsIssue); err != nil {
		return AgentCardRead{}, err
	}
	issue, err := s.readIssue(ctx, p, a.WalletID, limits, a.ID)
	if err != nil {
		return AgentCardRead{}, err
	}
	return AgentCardRead{tenantID: p.TenantID, env: p.Environment, agentID: a.ID, walletID: a.WalletID, issue: issue, limits: limits}, nil
}

// RecordAgentCard records the card ReadAgentCard prepared. The agent's row stays locked while
// the card is recorded, and the checks of ReadAgentCard run again under the lock, so concurrent
// calls make exactly one card (the others AGENT_CARD_EXISTS). Caps the body omitted are a copy
// of the agent's caps as they are under the lock; later changes to the agent's limits do not
// follow.
func (s *Service) RecordAgentCard(ctx context.Context, p auth.Principal, read AgentCardRead) (card.Card, error) {
	if err := kernel.RequireSandboxScope(p, agentSandboxMessage, auth.ScopeAgentsManage, auth.ScopeCardsIssue); err != nil {
		return card.Card{}, err
	}
	if read.agentID == "" || read.tenantID != p.TenantID || read.env != p.Environment {
		return card.Card{}, core.E(core.CodeInternal, "agent card read of another principal")
	}
	var c card.Card
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		a, err := tx.Agents().LockAgent(ctx, p.TenantID, p.Environment, read.agentID)
		if err != nil {
			return err
		}
		if err := canHaveCard(ctx, tx, a); err != nil {
			return err
		}
		if a.WalletID != read.walletID {
			return core.E(core.CodeInternal, "agent %s wallet changed while its card was issued", a.ID)
		}
		c, err = s.recordAgentCard(ctx, p, read, a.Limits)
		return err
	})
	return c, err
}

// recordAgentCard records the card over the agent's caps (what the body omitted copies them).
func (s *Service) recordAgentCard(ctx context.Context, p auth.Principal, read AgentCardRead, caps agent.Limits) (card.Card, error) {
	base := card.Limits{PerTransaction: caps.PerTransaction, Daily: caps.Daily, Weekly: caps.Weekly, Monthly: caps.Monthly, BlockedMCC: []string{}}
	issue := read.issue
	var err error
	if issue.limits, err = base.Apply(read.limits); err != nil {
		return card.Card{}, err
	}
	return s.Issue(ctx, p, issue)
}

// IssueAgentCard issues a card bound to agentID on walletID over no base limits in one call,
// outside any unit of work: the wallet's checks of ReadIssue, not the agent's of
// ReadAgentCard (a test and start-up path, not a route).
func (s *Service) IssueAgentCard(ctx context.Context, p auth.Principal, walletID, agentID string, limits card.LimitsPatch) (card.Card, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeCardsIssue); err != nil {
		return card.Card{}, err
	}
	if strings.TrimSpace(agentID) == "" {
		return card.Card{}, core.Invalid("agentId", "is required")
	}
	read, err := s.readIssue(ctx, p, walletID, limits, strings.TrimSpace(agentID))
	if err != nil {
		return card.Card{}, err
	}
	return s.Issue(ctx, p, read)
}

// canHaveCard reads whether the agent already has a card and applies agent.CanHaveCard.
func canHaveCard(ctx context.Context, tx ports.Tx, a agent.Agent) error {
	cardID, found, err := tx.Agents().FindAgentCard(ctx, a)
	if err != nil {
		return err
	}
	return a.CanHaveCard(cardID, found)
}
