package fake

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

// agentTables are agents and the card budget their authorizations consumed.
type agentTables struct {
	agents table[agent.Agent]
	spend  map[string]agent.CardSpend // by authorization id
}

func newAgentTables() agentTables {
	return agentTables{agents: newTable[agent.Agent](), spend: map[string]agent.CardSpend{}}
}

func (t agentTables) clone() agentTables {
	return agentTables{agents: t.agents.clone(), spend: copyOf(t.spend)}
}

// agentRepo stores agents and their card spend, and reads their spend and timeline from the
// Safe payments, cards and policy decisions the fake keeps, as the Postgres queries do.
type agentRepo struct{ s *Store }

var _ ports.AgentRepo = agentRepo{}

var errAgentNotFound = core.NotFound(agent.CodeNotFound, "agent")

func (r agentRepo) t() *agentTables { return &r.s.state.agents }

// CreateAgent refuses a second agent on one wallet, as the unique column does.
func (r agentRepo) CreateAgent(_ context.Context, a agent.Agent) error {
	if err := r.walletFree(a); err != nil {
		return err
	}
	return r.t().agents.insert(a.ID, a)
}

func (r agentRepo) walletFree(a agent.Agent) error {
	for _, other := range r.t().agents.rows {
		if a.WalletID != "" && other.ID != a.ID && other.WalletID == a.WalletID {
			return fmt.Errorf("fake: wallet %s already belongs to agent %s", a.WalletID, other.ID)
		}
	}
	return nil
}

func (r agentRepo) FindAgent(_ context.Context, tenantID string, env core.Environment, id string) (agent.Agent, error) {
	a, ok := r.t().agents.rows[id]
	if !ok || a.TenantID != tenantID || a.Environment != env {
		return agent.Agent{}, errAgentNotFound
	}
	return a, nil
}

// LockAgent is FindAgent: units of work already run one at a time.
func (r agentRepo) LockAgent(ctx context.Context, tenantID string, env core.Environment, id string) (agent.Agent, error) {
	return r.FindAgent(ctx, tenantID, env, id)
}

func (r agentRepo) FindAgentByWallet(_ context.Context, tenantID string, env core.Environment, walletID string) (agent.Agent, bool, error) {
	for _, a := range r.t().agents.filter(func(a agent.Agent) bool {
		return a.TenantID == tenantID && a.Environment == env && a.WalletID == walletID && walletID != ""
	}, false) {
		return a, true, nil
	}
	return agent.Agent{}, false, nil
}

func (r agentRepo) ListAgents(_ context.Context, tenantID string, env core.Environment, p ports.Page) ([]agent.Agent, int, error) {
	rows := r.t().agents.filter(func(a agent.Agent) bool { return a.TenantID == tenantID && a.Environment == env }, false)
	sortByTime(rows, func(a agent.Agent) time.Time { return a.CreatedAt })
	out, total := page(rows, p)
	return out, total, nil
}

// UpdateAgent writes status, wallet, limits and times (name and creation stay).
func (r agentRepo) UpdateAgent(_ context.Context, a agent.Agent) error {
	old, ok := r.t().agents.rows[a.ID]
	if !ok {
		return nil
	}
	if err := r.walletFree(a); err != nil {
		return err
	}
	old.Status, old.WalletID, old.Limits, old.UpdatedAt, old.SuspendedAt = a.Status, a.WalletID, a.Limits, a.UpdatedAt, a.SuspendedAt
	return r.t().agents.update(a.ID, old)
}

// SpentInWindows adds the agent wallet's COMPLETED Safe payments (by completion time, those
// recorded as card spend left out) to the unreleased card spend recorded in each window.
func (r agentRepo) SpentInWindows(_ context.Context, a agent.Agent, w agent.Windows) (agent.Spent, error) {
	var spent agent.Spent
	payments := r.s.state.payments.rows
	if a.WalletID != "" {
		for _, p := range payments {
			if _, isCard := r.t().spend[p.ID]; isCard || p.TenantID != a.TenantID || p.Environment != a.Environment ||
				p.SourceWalletID != a.WalletID || p.Status != safepay.StatusCompleted {
				continue
			}
			addSpend(&spent, p.AmountBaseUnits, !p.UpdatedAt.Before(w.Day), !p.UpdatedAt.Before(w.Week), !p.UpdatedAt.Before(w.Month))
		}
	}
	for _, s := range r.t().spend {
		if s.AgentID != a.ID || s.ReleasedAt != nil {
			continue
		}
		if p, ok := payments[s.AuthorizationID]; ok && strings.HasPrefix(s.AuthorizationID, core.PrefixPayment+"_") &&
			(p.Status == safepay.StatusFailed || p.Status == safepay.StatusCancelled) {
			continue
		}
		addSpend(&spent, s.AmountBaseUnits, s.Windows.Day.Equal(w.Day), s.Windows.Week.Equal(w.Week), s.Windows.Month.Equal(w.Month))
	}
	return spent, nil
}

func addSpend(s *agent.Spent, amount int64, day, week, month bool) {
	if day {
		s.Day += amount
	}
	if week {
		s.Week += amount
	}
	if month {
		s.Month += amount
	}
}

func (r agentRepo) CreateCardSpend(_ context.Context, s agent.CardSpend) error {
	if _, taken := r.t().spend[s.AuthorizationID]; taken {
		return fmt.Errorf("fake: card spend of %s exists", s.AuthorizationID)
	}
	if _, ok := r.t().agents.rows[s.AgentID]; !ok {
		return fmt.Errorf("fake: card spend of unknown agent %s", s.AgentID)
	}
	r.t().spend[s.AuthorizationID] = s
	return nil
}

func (r agentRepo) LockCardSpend(_ context.Context, tenantID, authorizationID string) (agent.CardSpend, bool, error) {
	s, ok := r.t().spend[authorizationID]
	if !ok || s.TenantID != tenantID {
		return agent.CardSpend{}, false, nil
	}
	return s, true, nil
}

// AdjustCardSpend changes an unreleased record only.
func (r agentRepo) AdjustCardSpend(_ context.Context, tenantID, authorizationID string, amount int64) error {
	if s, ok := r.t().spend[authorizationID]; ok && s.TenantID == tenantID && s.ReleasedAt == nil {
		s.AmountBaseUnits = amount
		r.t().spend[authorizationID] = s
	}
	return nil
}

// FindAgentCard is the agent's earliest card.
func (r agentRepo) FindAgentCard(_ context.Context, a agent.Agent) (string, bool, error) {
	cards := r.s.state.cards.cards.filter(func(c card.Card) bool {
		return c.TenantID == a.TenantID && c.Environment == a.Environment && c.AgentID == a.ID
	}, false)
	if len(cards) == 0 {
		return "", false, nil
	}
	sortByTime(cards, func(c card.Card) time.Time { return c.CreatedAt })
	return cards[0].ID, true, nil
}

// ReleaseCardSpend keeps the first release time.
func (r agentRepo) ReleaseCardSpend(_ context.Context, tenantID, authorizationID string, at time.Time) error {
	if s, ok := r.t().spend[authorizationID]; ok && s.TenantID == tenantID && s.ReleasedAt == nil {
		s.ReleasedAt = &at
		r.t().spend[authorizationID] = s
	}
	return nil
}

// ListActivity merges the agent wallet's Safe payments, its cards' authorizations and the
// policy decisions about it or its wallet, newest first (ties by id), strictly before cursor.
func (r agentRepo) ListActivity(_ context.Context, a agent.Agent, before *agent.Cursor, limit int) ([]agent.ActivityItem, error) {
	items := append(r.paymentActivity(a), r.cardActivity(a)...)
	items = append(items, r.decisionActivity(a)...)
	items = slices.DeleteFunc(items, func(it agent.ActivityItem) bool {
		return before != nil && (it.At.After(before.At) || (it.At.Equal(before.At) && it.ID >= before.ID))
	})
	slices.SortFunc(items, func(x, y agent.ActivityItem) int {
		if c := y.At.Compare(x.At); c != 0 {
			return c
		}
		return strings.Compare(y.ID, x.ID)
	})
	return items[:min(limit, len(items))], nil
}

func (r agentRepo) paymentActivity(a agent.Agent) []agent.ActivityItem {
	var out []agent.ActivityItem
	for _, p := range r.s.state.payments.rows {
		if p.TenantID == a.TenantID && p.Environment == a.Environment && p.SourceWalletID == a.WalletID {
			out = append(out, agent.ActivityItem{Kind: "payment", ID: p.ID, At: p.CreatedAt, AmountBaseUnits: p.AmountBaseUnits,
				Status: string(p.Status), Reason: p.FailureReason})
		}
	}
	return out
}

func (r agentRepo) cardActivity(a agent.Agent) []agent.ActivityItem {
	var out []agent.ActivityItem
	cards := r.s.state.cards.cards.rows
	for _, au := range r.s.state.cards.authorizations.rows {
		if c, ok := cards[au.CardID]; ok && c.TenantID == a.TenantID && c.Environment == a.Environment && c.AgentID == a.ID {
			out = append(out, agent.ActivityItem{Kind: "card_authorization", ID: au.ID, At: au.CreatedAt, AmountBaseUnits: au.Amount,
				Status: string(au.Status), Reason: au.DeclineReason, PolicyID: au.PolicyID, ReferenceID: au.CardID})
		}
	}
	return out
}

func (r agentRepo) decisionActivity(a agent.Agent) []agent.ActivityItem {
	var out []agent.ActivityItem
	for _, d := range r.s.state.policies.decisions.rows {
		about := (d.SubjectType == policy.SubjectAgent && d.SubjectID == a.ID) ||
			(d.SubjectType == policy.SubjectWallet && d.SubjectID == a.WalletID && a.WalletID != "")
		if d.TenantID != a.TenantID || d.Environment != a.Environment || !about {
			continue
		}
		status := "DENY"
		if d.Verdict.Allow {
			status = "ALLOW"
		}
		out = append(out, agent.ActivityItem{Kind: "policy_decision", ID: d.ID, At: d.CreatedAt, AmountBaseUnits: d.Transaction.AmountBaseUnits,
			Status: status, Reason: d.Verdict.Reason, SHA256: d.SHA256, PolicyID: d.PolicyID, ReferenceID: d.ReferenceID})
	}
	return out
}
