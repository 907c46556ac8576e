package agents

import (
	"context"
	"fmt"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
)

// CardIssuer issues an agent's card (the cards capability). PrepareAgentCard validates the
// limits patch and reads the chain (the wallet's Safe has the card spend module), so it runs
// outside any unit of work; the step it returns records the card bound to the agent inside
// the caller's unit of work, its limits the patch applied over base.
type CardIssuer interface {
	PrepareAgentCard(ctx context.Context, p auth.Principal, walletID, agentID string,
		limits card.LimitsPatch) (func(ctx context.Context, base card.Limits) (card.Card, error), error)
}

// CardRead is what issuing an agent's card checked before its unit of work.
type CardRead struct {
	tenantID, agentID, walletID string
	env                         core.Environment
	record                      func(ctx context.Context, base card.Limits) (card.Card, error)
}

// ReadCard checks, outside any unit of work, that the agent can get a card (no card yet:
// AGENT_CARD_EXISTS; ACTIVE: AGENT_SUSPENDED; a wallet: AGENT_WALLET_REQUIRED) and lets the
// cards capability validate the limits and read the wallet's Safe on chain
// (WALLET_NOT_DEPLOYED, CARD_MODULE_NOT_ENABLED). Card issuance is sandbox only.
func (s *Service) ReadCard(ctx context.Context, p auth.Principal, id string, limits card.LimitsPatch) (CardRead, error) {
	return s.readCard(ctx, p, id, "", limits)
}

// ReadWalletCard is ReadCard for a card issued on a named wallet (SPEC's agentId on
// POST /v1/wallets/{walletId}/cards): the same rules, and the wallet must be the agent's own
// (an agent's card spends only from its wallet), else VALIDATION_FAILED naming agentId.
func (s *Service) ReadWalletCard(ctx context.Context, p auth.Principal, walletID, agentID string, limits card.LimitsPatch) (CardRead, error) {
	if strings.TrimSpace(agentID) == "" {
		return CardRead{}, core.Invalid("agentId", "must be the id of one of your agents (agt_…), or null")
	}
	if strings.TrimSpace(walletID) == "" {
		return CardRead{}, core.Invalid("walletId", "is required")
	}
	return s.readCard(ctx, p, agentID, strings.TrimSpace(walletID), limits)
}

// readCard checks what ReadCard says; onWallet, when set, must be the agent's wallet.
func (s *Service) readCard(ctx context.Context, p auth.Principal, id, onWallet string, limits card.LimitsPatch) (CardRead, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeAgentsManage, auth.ScopeCardsIssue); err != nil {
		return CardRead{}, err
	}
	if err := kernel.RequireSandbox(p, "card issuance is sandbox only"); err != nil {
		return CardRead{}, err
	}
	var a agent.Agent
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
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
		return CardRead{}, err
	}
	record, err := s.cards.PrepareAgentCard(ctx, p, a.WalletID, a.ID, limits)
	if err != nil {
		return CardRead{}, err
	}
	return CardRead{tenantID: p.TenantID, env: p.Environment, agentID: a.ID, walletID: a.WalletID, record: record}, nil
}

// IssueCard records the card ReadCard prepared. The agent's row stays locked while the card
// is recorded, and the checks of ReadCard run again under the lock, so concurrent calls make
// exactly one card (the others AGENT_CARD_EXISTS). Caps the body omitted are a copy of the
// agent's caps as they are under the lock; later changes to the agent's limits do not follow.
func (s *Service) IssueCard(ctx context.Context, p auth.Principal, read CardRead) (card.Card, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeAgentsManage, auth.ScopeCardsIssue); err != nil {
		return card.Card{}, err
	}
	if read.record == nil || read.tenantID != p.TenantID || read.env != p.Environment {
		return card.Card{}, core.E(core.CodeInternal, "agent card read of another principal")
	}
	var c card.Card
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
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
		c, err = read.record(ctx, card.Limits{PerTransaction: a.Limits.PerTransaction, Daily: a.Limits.Daily,
			Weekly: a.Limits.Weekly, Monthly: a.Limits.Monthly, BlockedMCC: []string{}})
		return err
	})
	return c, err
}

// canHaveCard: one card per agent, an ACTIVE agent, and its wallet to spend from.
func canHaveCard(ctx context.Context, tx txView, a agent.Agent) error {
	cardID, found, err := tx.Agents().FindAgentCard(ctx, a)
	if err != nil {
		return err
	}
	if found {
		return core.E(agent.CodeCardExists, "agent %s already has card %s", a.ID, cardID).
			WithDetails(map[string]any{"agentId": a.ID, "cardId": cardID})
	}
	if err := requireActive(a); err != nil {
		return err
	}
	if a.WalletID == "" {
		return core.E(agent.CodeWalletRequired,
			"agent %s has no wallet: provision it with POST /v1/agents/%s/wallet, then issue its card once the wallet is DEPLOYED", a.ID, a.ID).
			WithDetails(map[string]any{"agentId": a.ID})
	}
	return nil
}
