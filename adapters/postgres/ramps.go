package postgres

import (
	"context"
	"database/sql"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/ramp"
	"github.com/corridorhq/corridor/ports"
)

var _ ports.RampRepo = rampRepo{}

type rampModel struct {
	bun.BaseModel   `bun:"table:ramps"`
	ID              string    `bun:"id,pk"`
	TenantID        string    `bun:"tenant_id,pk"`
	Environment     string    `bun:"environment"`
	WalletID        string    `bun:"wallet_id"`
	Direction       string    `bun:"direction"`
	Provider        string    `bun:"provider"`
	AmountBaseUnits int64     `bun:"amount_base_units"`
	DripID          *string   `bun:"drip_id"`
	PaymentID       *string   `bun:"payment_id"`
	CreatedAt       time.Time `bun:"created_at"`
}

func rampFromDomain(r ramp.Ramp) rampModel {
	return rampModel{ID: r.ID, TenantID: r.TenantID, Environment: string(r.Environment), WalletID: r.WalletID,
		Direction: string(r.Direction), Provider: r.Provider, AmountBaseUnits: r.AmountBaseUnits,
		DripID: nullable(r.DripID), PaymentID: nullable(r.PaymentID), CreatedAt: r.CreatedAt}
}

// domain converts a row back through the same checks as a new ramp.
func (m rampModel) domain() (ramp.Ramp, error) {
	r := ramp.Ramp{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), WalletID: m.WalletID,
		Direction: ramp.Direction(m.Direction), Provider: m.Provider, AmountBaseUnits: m.AmountBaseUnits,
		DripID: deref(m.DripID), PaymentID: deref(m.PaymentID), CreatedAt: m.CreatedAt.UTC()}
	return r, r.Validate()
}

type rampRepo struct{ db bun.IDB }

func (r rampRepo) CreateRamp(ctx context.Context, x ramp.Ramp) error {
	if err := x.Validate(); err != nil {
		return err
	}
	m := rampFromDomain(x)
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r rampRepo) FindRamp(ctx context.Context, tenantID string, env core.Environment, id string) (ramp.Ramp, error) {
	return oneRow[ramp.Ramp, rampModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id), ramp.ErrNotFound)
}

func (r rampRepo) ListRamps(ctx context.Context, f ports.RampFilter, page ports.Page) ([]ramp.Ramp, int, error) {
	var rows []rampModel
	q := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", f.TenantID, f.Environment)
	if f.WalletID != "" {
		q = q.Where("wallet_id = ?", f.WalletID)
	}
	total, err := q.OrderExpr("id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[ramp.Ramp](rows)
	if err != nil {
		return nil, 0, err
	}
	return out, int(total), nil
}

// LockOnRampCap takes a transaction-scoped advisory lock keyed by the tenant and environment.
func (r rampRepo) LockOnRampCap(ctx context.Context, tenantID string, env core.Environment) error {
	_, err := r.db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", "ramps:"+tenantID+":"+string(env))
	return err
}

func (r rampRepo) OnRampTotalSince(ctx context.Context, tenantID string, env core.Environment, since time.Time) (int64, error) {
	var total sql.NullInt64
	err := r.db.NewRaw(`SELECT sum(r.amount_base_units) FROM ramps r JOIN drips d ON d.tenant_id = r.tenant_id AND d.id = r.drip_id
		WHERE r.tenant_id = ? AND r.environment = ? AND r.direction = 'ON' AND r.created_at > ? AND d.status <> 'FAILED'`,
		tenantID, string(env), since).Scan(ctx, &total)
	return total.Int64, err
}
