package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/ports"
)

var errAgentNotFound = core.NotFound(agent.CodeNotFound, "agent")

type agentModel struct {
	bun.BaseModel  `bun:"table:agents"`
	ID             string     `bun:"id,pk"`
	TenantID       string     `bun:"tenant_id,pk"`
	Environment    string     `bun:"environment"`
	Name           string     `bun:"name"`
	Status         string     `bun:"status"`
	WalletID       *string    `bun:"wallet_id"`
	PerTransaction *int64     `bun:"per_transaction_base_units"`
	Daily          *int64     `bun:"daily_base_units"`
	Weekly         *int64     `bun:"weekly_base_units"`
	Monthly        *int64     `bun:"monthly_base_units"`
	CreatedAt      time.Time  `bun:"created_at"`
	UpdatedAt      time.Time  `bun:"updated_at"`
	SuspendedAt    *time.Time `bun:"suspended_at"`
}

func agentModelOf(a agent.Agent) agentModel {
	return agentModel{
		ID: a.ID, TenantID: a.TenantID, Environment: string(a.Environment), Name: a.Name, Status: string(a.Status),
		WalletID: nullable(a.WalletID), PerTransaction: a.Limits.PerTransaction, Daily: a.Limits.Daily,
		Weekly: a.Limits.Weekly, Monthly: a.Limits.Monthly, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, SuspendedAt: a.SuspendedAt,
	}
}

func (m agentModel) domain() (agent.Agent, error) {
	status := agent.Status(m.Status)
	if status != agent.StatusActive && status != agent.StatusSuspended {
		return agent.Agent{}, core.E(core.CodeInternal, "agent %s has unknown status %q", m.ID, m.Status)
	}
	return agent.Agent{
		ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), Name: m.Name, Status: status,
		WalletID:  deref(m.WalletID),
		Limits:    agent.Limits{PerTransaction: m.PerTransaction, Daily: m.Daily, Weekly: m.Weekly, Monthly: m.Monthly},
		CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(), SuspendedAt: utcPtr(m.SuspendedAt),
	}, nil
}

type agentRepo struct{ db bun.IDB }

var _ ports.AgentRepo = agentRepo{}

func (r agentRepo) CreateAgent(ctx context.Context, a agent.Agent) error {
	m := agentModelOf(a)
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r agentRepo) FindAgent(ctx context.Context, tenantID string, env core.Environment, id string) (agent.Agent, error) {
	return oneRow[agent.Agent, agentModel](ctx, r.db.NewSelect().
		Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id), errAgentNotFound)
}

func (r agentRepo) LockAgent(ctx context.Context, tenantID string, env core.Environment, id string) (agent.Agent, error) {
	return oneRow[agent.Agent, agentModel](ctx, r.db.NewSelect().
		Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id).For("UPDATE"), errAgentNotFound)
}

func (r agentRepo) FindAgentByWallet(ctx context.Context, tenantID string, env core.Environment, walletID string) (agent.Agent, bool, error) {
	a, err := oneRow[agent.Agent, agentModel](ctx, r.db.NewSelect().
		Where("tenant_id = ? AND environment = ? AND wallet_id = ?", tenantID, env, walletID), errAgentNotFound)
	if errors.Is(err, errAgentNotFound) {
		return agent.Agent{}, false, nil
	}
	return a, err == nil, err
}

func (r agentRepo) ListAgents(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]agent.Agent, int, error) {
	var rows []agentModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", tenantID, env).
		OrderExpr("created_at ASC, id ASC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[agent.Agent](rows)
	return out, int(total), err
}

func (r agentRepo) UpdateAgent(ctx context.Context, a agent.Agent) error {
	m := agentModelOf(a)
	_, err := r.db.NewUpdate().Model(&m).
		Column("status", "wallet_id", "per_transaction_base_units", "daily_base_units", "weekly_base_units",
			"monthly_base_units", "updated_at", "suspended_at").
		WherePK().Exec(ctx)
	return err
}

// SpentInWindows counts two kinds of record. The spend guard reserves a Safe payment of an
// agent's wallet under the payment id in agent_card_spend when it is accepted: a reservation
// counts in the windows it was made in while its payment is live or COMPLETED, and stops
// counting when the payment FAILED or was CANCELLED (that is its release); one whose payment
// was never recorded (a proposal refused after the guard, committing only its challenge)
// counts nothing. A COMPLETED payment with no reservation (accepted before reservations
// existed) counts when it completed: it is terminal, so its updated_at is that instant. Card
// authorizations count in the windows they were consumed in.
func (r agentRepo) SpentInWindows(ctx context.Context, a agent.Agent, w agent.Windows) (agent.Spent, error) {
	var spent agent.Spent
	if a.WalletID != "" {
		err := r.db.NewRaw(`
SELECT COALESCE(SUM(amount_base_units) FILTER (WHERE updated_at >= ?), 0),
       COALESCE(SUM(amount_base_units) FILTER (WHERE updated_at >= ?), 0),
       COALESCE(SUM(amount_base_units) FILTER (WHERE updated_at >= ?), 0)
FROM safe_payments
WHERE tenant_id = ? AND environment = ? AND source_wallet_id = ? AND status = 'COMPLETED' AND updated_at >= ?
  AND NOT EXISTS (SELECT 1 FROM agent_card_spend r WHERE r.tenant_id = safe_payments.tenant_id AND r.authorization_id = safe_payments.id)`,
			w.Day, w.Week, w.Month, a.TenantID, a.Environment, a.WalletID, earliest(w)).Scan(ctx, &spent.Day, &spent.Week, &spent.Month)
		if err != nil {
			return agent.Spent{}, err
		}
	}
	var reserved agent.Spent
	err := r.db.NewRaw(`
SELECT COALESCE(SUM(s.amount_base_units) FILTER (WHERE s.day_start = ?), 0),
       COALESCE(SUM(s.amount_base_units) FILTER (WHERE s.week_start = ?), 0),
       COALESCE(SUM(s.amount_base_units) FILTER (WHERE s.month_start = ?), 0)
FROM agent_card_spend s
LEFT JOIN safe_payments p ON p.tenant_id = s.tenant_id AND p.id = s.authorization_id
WHERE s.tenant_id = ? AND s.agent_id = ? AND s.released_at IS NULL AND (s.month_start = ? OR s.week_start = ?)
  AND (s.authorization_id NOT LIKE ? OR p.status NOT IN ('FAILED', 'CANCELLED'))`,
		w.Day, w.Week, w.Month, a.TenantID, a.ID, w.Month, w.Week, core.PrefixPayment+`\_%`).Scan(ctx, &reserved.Day, &reserved.Week, &reserved.Month)
	if err != nil {
		return agent.Spent{}, err
	}
	return agent.Spent{Day: spent.Day + reserved.Day, Week: spent.Week + reserved.Week, Month: spent.Month + reserved.Month}, nil
}

// earliest is the earliest window start: an ISO week can begin in the month before.
func earliest(w agent.Windows) time.Time {
	if w.Week.Before(w.Month) {
		return w.Week
	}
	return w.Month
}

type agentCardSpendModel struct {
	bun.BaseModel   `bun:"table:agent_card_spend"`
	AuthorizationID string     `bun:"authorization_id,pk"`
	AgentID         string     `bun:"agent_id"`
	TenantID        string     `bun:"tenant_id,pk"`
	Environment     string     `bun:"environment"`
	AmountBaseUnits int64      `bun:"amount_base_units"`
	DayStart        time.Time  `bun:"day_start"`
	WeekStart       time.Time  `bun:"week_start"`
	MonthStart      time.Time  `bun:"month_start"`
	ConsumedAt      time.Time  `bun:"consumed_at"`
	ReleasedAt      *time.Time `bun:"released_at"`
}

func (r agentRepo) CreateCardSpend(ctx context.Context, s agent.CardSpend) error {
	m := agentCardSpendModel{AuthorizationID: s.AuthorizationID, AgentID: s.AgentID, TenantID: s.TenantID,
		Environment: string(s.Environment), AmountBaseUnits: s.AmountBaseUnits, DayStart: s.Windows.Day,
		WeekStart: s.Windows.Week, MonthStart: s.Windows.Month, ConsumedAt: s.ConsumedAt, ReleasedAt: s.ReleasedAt}
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r agentRepo) LockCardSpend(ctx context.Context, tenantID, authorizationID string) (agent.CardSpend, bool, error) {
	var m agentCardSpendModel
	err := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND authorization_id = ?", tenantID, authorizationID).For("UPDATE").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return agent.CardSpend{}, false, nil
	}
	if err != nil {
		return agent.CardSpend{}, false, err
	}
	return agent.CardSpend{AuthorizationID: m.AuthorizationID, AgentID: m.AgentID, TenantID: m.TenantID,
		Environment: core.Environment(m.Environment), AmountBaseUnits: m.AmountBaseUnits,
		Windows:    agent.Windows{Day: m.DayStart.UTC(), Week: m.WeekStart.UTC(), Month: m.MonthStart.UTC()},
		ConsumedAt: m.ConsumedAt.UTC(), ReleasedAt: utcPtr(m.ReleasedAt)}, true, nil
}

func (r agentRepo) AdjustCardSpend(ctx context.Context, tenantID, authorizationID string, amount int64) error {
	_, err := r.db.NewUpdate().Model((*agentCardSpendModel)(nil)).Set("amount_base_units = ?", amount).
		Where("tenant_id = ? AND authorization_id = ? AND released_at IS NULL", tenantID, authorizationID).Exec(ctx)
	return err
}

func (r agentRepo) FindAgentCard(ctx context.Context, a agent.Agent) (string, bool, error) {
	var ids []string
	err := r.db.NewSelect().Table("cards").Column("id").
		Where("tenant_id = ? AND environment = ? AND agent_id = ?", a.TenantID, a.Environment, a.ID).
		OrderExpr("created_at, id").Limit(1).Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return "", false, err
	}
	return ids[0], true, nil
}

func (r agentRepo) ReleaseCardSpend(ctx context.Context, tenantID, authorizationID string, at time.Time) error {
	_, err := r.db.NewUpdate().Model((*agentCardSpendModel)(nil)).Set("released_at = COALESCE(released_at, ?)", at).
		Where("tenant_id = ? AND authorization_id = ?", tenantID, authorizationID).Exec(ctx)
	return err
}

type activityRow struct {
	Kind     string    `bun:"kind"`
	ID       string    `bun:"id"`
	At       time.Time `bun:"at"`
	Amount   int64     `bun:"amount"`
	Status   string    `bun:"status"`
	Reason   *string   `bun:"reason"`
	SHA256   *string   `bun:"sha256"`
	PolicyID *string   `bun:"policy_id"`
	RefID    *string   `bun:"reference_id"`
}

// ListActivity merges the sources newest first; (at, id) orders ties. A decision belongs to
// the agent when its subject is the agent or the agent's wallet; a card authorization when
// its card is bound to the agent (its referenceId is the card).
func (r agentRepo) ListActivity(ctx context.Context, a agent.Agent, before *agent.Cursor, limit int) ([]agent.ActivityItem, error) {
	beforeAt, beforeID := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), ""
	if before != nil {
		beforeAt, beforeID = before.At, before.ID
	}
	var rows []activityRow
	err := r.db.NewRaw(`
SELECT * FROM (
    SELECT 'payment' AS kind, id, created_at AS at, amount_base_units AS amount, status,
           failure_reason AS reason, NULL::text AS sha256, NULL::text AS policy_id, NULL::text AS reference_id
    FROM safe_payments
    WHERE tenant_id = ? AND environment = ? AND source_wallet_id = ?
    UNION ALL
    SELECT 'card_authorization', ca.id, ca.created_at, ca.amount_base_units, ca.status,
           ca.decline_reason, NULL::text, ca.policy_id, ca.card_id
    FROM card_authorizations ca JOIN cards c ON c.tenant_id = ca.tenant_id AND c.id = ca.card_id
    WHERE c.tenant_id = ? AND c.environment = ? AND c.agent_id = ?
    UNION ALL
    SELECT 'policy_decision', id, created_at, amount_base_units, CASE WHEN allow THEN 'ALLOW' ELSE 'DENY' END,
           reason, sha256, policy_id, reference_id
    FROM policy_decisions
    WHERE tenant_id = ? AND environment = ?
      AND ((subject_type = 'agent' AND subject_id = ?) OR (subject_type = 'wallet' AND subject_id = ?))
) timeline
WHERE (at, id) < (?, ?)
ORDER BY at DESC, id DESC
LIMIT ?`,
		a.TenantID, a.Environment, a.WalletID, a.TenantID, a.Environment, a.ID, a.TenantID, a.Environment, a.ID, a.WalletID,
		beforeAt, beforeID, limit).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	return infallibleRows(rows), nil
}

func (row activityRow) domain() agent.ActivityItem {
	return agent.ActivityItem{Kind: row.Kind, ID: row.ID, At: row.At.UTC(), AmountBaseUnits: row.Amount,
		Status: row.Status, Reason: deref(row.Reason), SHA256: deref(row.SHA256), PolicyID: deref(row.PolicyID), ReferenceID: deref(row.RefID)}
}
