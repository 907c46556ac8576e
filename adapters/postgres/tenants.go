package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ports"
)

type tenantModel struct {
	bun.BaseModel `bun:"table:tenants"`
	ID            string    `bun:"id,pk"`
	Slug          string    `bun:"slug"`
	Name          string    `bun:"name"`
	OwnerUserID   string    `bun:"owner_user_id"`
	CreatedAt     time.Time `bun:"created_at"`
}

func (m tenantModel) domain() tenant.Tenant {
	return tenant.Tenant{ID: m.ID, Slug: m.Slug, Name: m.Name, OwnerUserID: m.OwnerUserID, CreatedAt: m.CreatedAt.UTC()}
}

type tenantRepo struct{ db bun.IDB }

// CreateTenant inserts unless the slug is taken; ON CONFLICT keeps the transaction usable so
// the caller can try the next slug candidate.
func (r tenantRepo) CreateTenant(ctx context.Context, t tenant.Tenant) error {
	m := tenantModel{ID: t.ID, Slug: t.Slug, Name: t.Name, OwnerUserID: t.OwnerUserID, CreatedAt: t.CreatedAt}
	res, err := r.db.NewInsert().Model(&m).On("CONFLICT (slug) DO NOTHING").Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ports.ErrSlugTaken
	}
	return nil
}

func (r tenantRepo) FindTenant(ctx context.Context, id string) (tenant.Tenant, error) {
	var m tenantModel
	err := r.db.NewSelect().Model(&m).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return tenant.Tenant{}, core.NotFound(core.CodeTenantNotFound, "tenant")
	}
	return m.domain(), err
}

func (r tenantRepo) FindTenantForUser(ctx context.Context, userID string) (tenant.Tenant, *tenant.Member, error) {
	var m tenantModel
	err := r.db.NewSelect().Model(&m).Where("owner_user_id = ?", userID).Scan(ctx)
	if err == nil {
		return m.domain(), nil, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return tenant.Tenant{}, nil, err
	}
	var mem memberModel
	err = r.db.NewSelect().Model(&mem).
		Where("identity_user_id = ? AND status = ?", userID, tenant.MemberActive).
		OrderExpr("accepted_at ASC").Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return tenant.Tenant{}, nil, core.NotFound(core.CodeTenantNotFound, "tenant")
	}
	if err != nil {
		return tenant.Tenant{}, nil, err
	}
	t, err := r.FindTenant(ctx, mem.TenantID)
	member := mem.domain()
	return t, &member, err
}

// LockUser takes a transaction-scoped advisory lock on the user id.
func (r tenantRepo) LockUser(ctx context.Context, userID string) error {
	_, err := r.db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 1))", "user:"+userID)
	return err
}
