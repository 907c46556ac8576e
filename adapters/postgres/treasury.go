package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/treasury"
	"github.com/corridorhq/corridor/ports"
)

var (
	errTreasuryAccountNotFound = core.NotFound(treasury.CodeAccountNotFound, "treasury account")
	errTreasuryRuleNotFound    = core.NotFound(treasury.CodeRuleNotFound, "treasury rule")
)

type treasuryAccountModel struct {
	bun.BaseModel   `bun:"table:treasury_accounts,alias:ta"`
	ID              string    `bun:"id,pk"`
	TenantID        string    `bun:"tenant_id,pk"`
	Environment     string    `bun:"environment"`
	Name            string    `bun:"name"`
	ChainID         int64     `bun:"chain_id"`
	Threshold       int       `bun:"threshold"`
	ClockOffsetDays int       `bun:"clock_offset_days"`
	CreatedAt       time.Time `bun:"created_at"`
}

type treasuryBucketModel struct {
	bun.BaseModel `bun:"table:treasury_buckets,alias:b"`
	ID            string `bun:"id,pk"`
	TenantID      string `bun:"tenant_id,pk"`
	AccountID     string `bun:"account_id"`
	WalletID      string `bun:"wallet_id"`
	Name          string `bun:"name"`
	Kind          string `bun:"kind"`
	TargetBps     int    `bun:"target_bps"`
	ApyBps        int    `bun:"apy_bps"`
	Position      int    `bun:"position"`
	Address       string `bun:"address,scanonly"`
	WalletStatus  string `bun:"wallet_status,scanonly"`
}

func (m treasuryBucketModel) domain() treasury.Bucket {
	return treasury.Bucket{ID: m.ID, AccountID: m.AccountID, WalletID: m.WalletID, Address: m.Address,
		WalletStatus: m.WalletStatus, Name: m.Name, Kind: treasury.Kind(m.Kind), TargetBps: m.TargetBps,
		ApyBps: m.ApyBps, Position: m.Position}
}

type treasuryRuleModel struct {
	bun.BaseModel   `bun:"table:treasury_rules"`
	ID              string     `bun:"id,pk"`
	AccountID       string     `bun:"account_id"`
	TenantID        string     `bun:"tenant_id,pk"`
	Environment     string     `bun:"environment"`
	Type            string     `bun:"type"`
	SourceBucketID  *string    `bun:"source_bucket_id"`
	DestBucketID    *string    `bun:"dest_bucket_id"`
	Threshold       *int64     `bun:"threshold_base_units"`
	Target          *int64     `bun:"target_base_units"`
	IntervalSeconds int        `bun:"interval_seconds"`
	Enabled         bool       `bun:"enabled"`
	LastFiredAt     *time.Time `bun:"last_fired_at"`
	LastEvaluatedAt *time.Time `bun:"last_evaluated_at"`
	LastSkippedAt   *time.Time `bun:"last_skipped_at"`
	LastSkipReason  string     `bun:"last_skip_reason"`
	CreatedAt       time.Time  `bun:"created_at"`
	DeletedAt       *time.Time `bun:"deleted_at"`
}

func (m treasuryRuleModel) domain() (treasury.Rule, error) {
	r := treasury.Rule{ID: m.ID, AccountID: m.AccountID, TenantID: m.TenantID, Environment: core.Environment(m.Environment),
		Type: treasury.RuleType(m.Type), SourceBucketID: deref(m.SourceBucketID), DestBucketID: deref(m.DestBucketID),
		Threshold: m.Threshold, Target: m.Target, IntervalSeconds: m.IntervalSeconds, Enabled: m.Enabled,
		LastFiredAt: utcPtr(m.LastFiredAt), LastEvaluatedAt: utcPtr(m.LastEvaluatedAt), LastSkippedAt: utcPtr(m.LastSkippedAt),
		LastSkipReason: m.LastSkipReason, CreatedAt: m.CreatedAt.UTC(), DeletedAt: utcPtr(m.DeletedAt)}
	if !r.Type.Valid() {
		return treasury.Rule{}, fmt.Errorf("postgres: treasury rule %s has type %q", m.ID, m.Type)
	}
	return r, nil
}

func treasuryRuleFromDomain(r treasury.Rule) treasuryRuleModel {
	return treasuryRuleModel{ID: r.ID, AccountID: r.AccountID, TenantID: r.TenantID, Environment: string(r.Environment),
		Type: string(r.Type), SourceBucketID: nullable(r.SourceBucketID), DestBucketID: nullable(r.DestBucketID),
		Threshold: r.Threshold, Target: r.Target, IntervalSeconds: r.IntervalSeconds, Enabled: r.Enabled,
		LastFiredAt: r.LastFiredAt, LastEvaluatedAt: r.LastEvaluatedAt, LastSkippedAt: r.LastSkippedAt,
		LastSkipReason: r.LastSkipReason, CreatedAt: r.CreatedAt, DeletedAt: r.DeletedAt}
}

type treasurySweepModel struct {
	bun.BaseModel  `bun:"table:treasury_sweeps"`
	ID             string    `bun:"id,pk"`
	AccountID      string    `bun:"account_id"`
	TenantID       string    `bun:"tenant_id,pk"`
	Environment    string    `bun:"environment"`
	RuleID         *string   `bun:"rule_id"`
	SourceBucketID string    `bun:"source_bucket_id"`
	DestBucketID   string    `bun:"dest_bucket_id"`
	Amount         int64     `bun:"amount_base_units"`
	Status         string    `bun:"status"`
	PaymentID      string    `bun:"payment_id"`
	ProposedBy     string    `bun:"proposed_by"`
	CreatedAt      time.Time `bun:"created_at"`
}

func (m treasurySweepModel) domain() (treasury.Sweep, error) {
	if m.Amount <= 0 {
		return treasury.Sweep{}, fmt.Errorf("postgres: treasury sweep %s has amount %d", m.ID, m.Amount)
	}
	return treasury.Sweep{ID: m.ID, AccountID: m.AccountID, TenantID: m.TenantID, Environment: core.Environment(m.Environment),
		RuleID: deref(m.RuleID), SourceBucketID: m.SourceBucketID, DestBucketID: m.DestBucketID, AmountBaseUnits: m.Amount,
		Status: m.Status, PaymentID: m.PaymentID, ProposedBy: m.ProposedBy, CreatedAt: m.CreatedAt.UTC()}, nil
}

type treasuryRepo struct{ db bun.IDB }

func (r treasuryRepo) CreateAccount(ctx context.Context, a treasury.Account) error {
	m := treasuryAccountModel{ID: a.ID, TenantID: a.TenantID, Environment: string(a.Environment), Name: a.Name,
		ChainID: a.ChainID, Threshold: a.Threshold, ClockOffsetDays: a.ClockOffsetDays, CreatedAt: a.CreatedAt}
	if _, err := r.db.NewInsert().Model(&m).Exec(ctx); err != nil {
		return err
	}
	buckets := make([]treasuryBucketModel, len(a.Buckets))
	for i, b := range a.Buckets {
		buckets[i] = treasuryBucketModel{ID: b.ID, TenantID: a.TenantID, AccountID: a.ID, WalletID: b.WalletID, Name: b.Name, Kind: string(b.Kind),
			TargetBps: b.TargetBps, ApyBps: b.ApyBps, Position: b.Position}
	}
	_, err := r.db.NewInsert().Model(&buckets).Exec(ctx)
	return err
}

// withBuckets loads the buckets of accounts, with their wallets' address and status.
func (r treasuryRepo) withBuckets(ctx context.Context, rows []treasuryAccountModel) ([]treasury.Account, error) {
	out := make([]treasury.Account, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	tenantID := rows[0].TenantID
	ids := make([]string, len(rows))
	index := map[string]int{}
	for i, m := range rows {
		ids[i] = m.ID
		index[m.ID] = i
		if m.TenantID != tenantID {
			return nil, fmt.Errorf("postgres: treasury accounts of two tenants read together (%s, %s)", tenantID, m.TenantID)
		}
		out[i] = treasury.Account{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), Name: m.Name,
			ChainID: m.ChainID, Threshold: m.Threshold, ClockOffsetDays: m.ClockOffsetDays, CreatedAt: m.CreatedAt.UTC()}
	}
	var buckets []treasuryBucketModel
	err := r.db.NewSelect().Model(&buckets).ColumnExpr("b.*").ColumnExpr("w.address AS address, w.status AS wallet_status").
		Join("JOIN wallets AS w ON w.tenant_id = b.tenant_id AND w.id = b.wallet_id").
		Where("b.tenant_id = ? AND b.account_id IN (?)", tenantID, bun.List(ids)).
		OrderExpr("b.account_id, b.position").Scan(ctx)
	if err != nil {
		return nil, err
	}
	for _, b := range buckets {
		i := index[b.AccountID]
		out[i].Buckets = append(out[i].Buckets, b.domain())
	}
	for _, a := range out {
		if len(a.Buckets) < treasury.MinBuckets || len(a.Buckets) > treasury.MaxBuckets {
			return nil, fmt.Errorf("postgres: treasury account %s has %d buckets", a.ID, len(a.Buckets))
		}
	}
	return out, nil
}

func (r treasuryRepo) oneAccount(ctx context.Context, q *bun.SelectQuery, m *treasuryAccountModel) (treasury.Account, error) {
	err := q.Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return treasury.Account{}, errTreasuryAccountNotFound
	}
	if err != nil {
		return treasury.Account{}, err
	}
	out, err := r.withBuckets(ctx, []treasuryAccountModel{*m})
	if err != nil {
		return treasury.Account{}, err
	}
	return out[0], nil
}

func (r treasuryRepo) FindAccount(ctx context.Context, tenantID string, env core.Environment, id string) (treasury.Account, error) {
	var m treasuryAccountModel
	return r.oneAccount(ctx, r.db.NewSelect().Model(&m).Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id), &m)
}

func (r treasuryRepo) FindAccountIDByWallet(ctx context.Context, tenantID string, env core.Environment, walletID string) (string, bool, error) {
	var ids []string
	err := r.db.NewSelect().TableExpr("treasury_buckets AS b").Column("b.account_id").
		Join("JOIN treasury_accounts AS a ON a.tenant_id = b.tenant_id AND a.id = b.account_id").
		Where("b.tenant_id = ? AND b.wallet_id = ? AND a.environment = ?", tenantID, walletID, env).
		Limit(1).Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return "", false, err
	}
	return ids[0], true, nil
}

func (r treasuryRepo) LockAccount(ctx context.Context, tenantID, id string) (treasury.Account, error) {
	var m treasuryAccountModel
	return r.oneAccount(ctx, r.db.NewSelect().Model(&m).Where("tenant_id = ? AND id = ?", tenantID, id).For("UPDATE"), &m)
}

func (r treasuryRepo) ListAccounts(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]treasury.Account, int, error) {
	var rows []treasuryAccountModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", tenantID, env).
		OrderExpr("id ASC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := r.withBuckets(ctx, rows)
	return out, int(total), err
}

func (r treasuryRepo) ListYieldAccounts(ctx context.Context, env core.Environment, afterID string, limit int) ([]treasury.Account, error) {
	var rows []treasuryAccountModel
	err := r.db.NewSelect().Model(&rows).Where("environment = ? AND id > ?", env, afterID).
		Where("EXISTS (SELECT 1 FROM treasury_buckets tb WHERE tb.tenant_id = ta.tenant_id AND tb.account_id = ta.id AND tb.apy_bps > 0)").
		OrderExpr("id ASC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]treasury.Account, 0, len(rows))
	for _, row := range rows {
		a, err := r.withBuckets(ctx, []treasuryAccountModel{row})
		if err != nil {
			return nil, err
		}
		out = append(out, a...)
	}
	return out, nil
}

func (r treasuryRepo) SetClockOffset(ctx context.Context, tenantID, accountID string, days int) error {
	_, err := r.db.NewUpdate().Model((*treasuryAccountModel)(nil)).Set("clock_offset_days = ?", days).
		Where("tenant_id = ? AND id = ?", tenantID, accountID).Exec(ctx)
	return err
}

func (r treasuryRepo) CreateRule(ctx context.Context, rule treasury.Rule) error {
	m := treasuryRuleFromDomain(rule)
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r treasuryRepo) FindRule(ctx context.Context, tenantID string, env core.Environment, id string) (treasury.Rule, error) {
	return oneRow[treasury.Rule, treasuryRuleModel](ctx, r.db.NewSelect().
		Where("tenant_id = ? AND environment = ? AND id = ? AND deleted_at IS NULL", tenantID, env, id), errTreasuryRuleNotFound)
}

func (r treasuryRepo) LockRule(ctx context.Context, tenantID, id string) (treasury.Rule, error) {
	return oneRow[treasury.Rule, treasuryRuleModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND id = ?", tenantID, id).For("UPDATE"), errTreasuryRuleNotFound)
}

func (r treasuryRepo) UpdateRule(ctx context.Context, rule treasury.Rule) error {
	m := treasuryRuleFromDomain(rule)
	_, err := r.db.NewUpdate().Model(&m).Column("threshold_base_units", "target_base_units", "interval_seconds", "enabled",
		"last_fired_at", "last_evaluated_at", "last_skipped_at", "last_skip_reason", "deleted_at").WherePK().Exec(ctx)
	return err
}

func (r treasuryRepo) ListRules(ctx context.Context, tenantID, accountID string, page ports.Page) ([]treasury.Rule, int, error) {
	var rows []treasuryRuleModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND account_id = ? AND deleted_at IS NULL", tenantID, accountID).
		OrderExpr("id ASC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[treasury.Rule](rows)
	return out, int(total), err
}

func (r treasuryRepo) CountRules(ctx context.Context, tenantID, accountID string) (int, error) {
	n, err := r.db.NewSelect().Model((*treasuryRuleModel)(nil)).
		Where("tenant_id = ? AND account_id = ? AND deleted_at IS NULL", tenantID, accountID).Count(ctx)
	return int(n), err
}

func (r treasuryRepo) ListDueRules(ctx context.Context, env core.Environment, accountID string, now time.Time, limit int) ([]treasury.Rule, error) {
	var rows []treasuryRuleModel
	q := r.db.NewSelect().Model(&rows).
		Join("JOIN treasury_accounts AS ta ON ta.tenant_id = treasury_rule_model.tenant_id AND ta.id = treasury_rule_model.account_id").
		Where("treasury_rule_model.environment = ? AND treasury_rule_model.enabled AND treasury_rule_model.deleted_at IS NULL", env).
		Where("coalesce(treasury_rule_model.last_evaluated_at, treasury_rule_model.created_at) + make_interval(secs => treasury_rule_model.interval_seconds) <= ?::timestamptz + make_interval(days => ta.clock_offset_days)", now)
	if accountID != "" {
		q = q.Where("treasury_rule_model.account_id = ?", accountID)
	}
	err := q.OrderExpr("coalesce(treasury_rule_model.last_evaluated_at, treasury_rule_model.created_at) + make_interval(secs => treasury_rule_model.interval_seconds) - make_interval(days => ta.clock_offset_days) ASC, treasury_rule_model.id ASC").
		Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, err
	}
	return domainRows[treasury.Rule](rows)
}

func (r treasuryRepo) CreateSweep(ctx context.Context, s treasury.Sweep) error {
	m := treasurySweepModel{ID: s.ID, AccountID: s.AccountID, TenantID: s.TenantID, Environment: string(s.Environment),
		RuleID: nullable(s.RuleID), SourceBucketID: s.SourceBucketID, DestBucketID: s.DestBucketID, Amount: s.AmountBaseUnits,
		Status: s.Status, PaymentID: s.PaymentID, ProposedBy: s.ProposedBy, CreatedAt: s.CreatedAt}
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r treasuryRepo) ListSweeps(ctx context.Context, tenantID, accountID string, page ports.Page) ([]treasury.Sweep, int, error) {
	var rows []treasurySweepModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND account_id = ?", tenantID, accountID).
		OrderExpr("id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[treasury.Sweep](rows)
	return out, int(total), err
}

func (r treasuryRepo) FindSweepByPayment(ctx context.Context, tenantID, paymentID string) (treasury.Sweep, bool, error) {
	s, err := oneRow[treasury.Sweep, treasurySweepModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND payment_id = ?", tenantID, paymentID), sql.ErrNoRows)
	if errors.Is(err, sql.ErrNoRows) {
		return treasury.Sweep{}, false, nil
	}
	return s, err == nil, err
}

// PendingSweepOutflows reads from the payments side: the sources' live payments (their partial
// index), each joined to its sweep by the sweep's unique payment key.
func (r treasuryRepo) PendingSweepOutflows(ctx context.Context, tenantID, accountID string, walletIDs []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(walletIDs) == 0 {
		return out, nil
	}
	rows, err := r.db.QueryContext(ctx, `SELECT s.source_bucket_id, sum(s.amount_base_units)::bigint
		FROM safe_payments p JOIN treasury_sweeps s ON s.tenant_id = p.tenant_id AND s.payment_id = p.id
		WHERE p.tenant_id = ? AND p.source_wallet_id IN (?) AND p.status NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')
			AND s.account_id = ?
		GROUP BY s.source_bucket_id`, tenantID, bun.List(walletIDs), accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var bucket string
		var amount int64
		if err := rows.Scan(&bucket, &amount); err != nil {
			return nil, err
		}
		out[bucket] = amount
	}
	return out, rows.Err()
}

func (r treasuryRepo) LatestRuleSweep(ctx context.Context, tenantID, ruleID string) (treasury.Sweep, bool, error) {
	s, err := oneRow[treasury.Sweep, treasurySweepModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND rule_id = ?", tenantID, ruleID).
		OrderExpr("id DESC").Limit(1), sql.ErrNoRows)
	if errors.Is(err, sql.ErrNoRows) {
		return treasury.Sweep{}, false, nil
	}
	return s, err == nil, err
}
