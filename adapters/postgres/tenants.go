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

// CreateTenant inserts unless the slug is taken. The slug and the owner are unique across
// tenants through their lookup rows (on Citus tenants is distributed by id, which cannot hold a
// unique key on another column): the slug's row is claimed first, with ON CONFLICT so the
// transaction stays usable and the caller can try the next slug candidate; the owner's row
// refuses a second tenant for one user. A session finds its owned tenant by that row too.
func (r tenantRepo) CreateTenant(ctx context.Context, t tenant.Tenant) error {
	res, err := r.db.ExecContext(ctx, `INSERT INTO tenant_lookups (lookup_key, kind, tenant_id) VALUES (?, ?, ?)
		ON CONFLICT DO NOTHING`, t.Slug, lookupTenantSlug, t.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ports.ErrSlugTaken
	}
	if _, err := r.db.ExecContext(ctx, `INSERT INTO tenant_lookups (lookup_key, kind, tenant_id) VALUES (?, ?, ?)`,
		t.OwnerUserID, lookupTenantOwner, t.ID); err != nil {
		return err
	}
	m := tenantModel{ID: t.ID, Slug: t.Slug, Name: t.Name, OwnerUserID: t.OwnerUserID, CreatedAt: t.CreatedAt}
	_, err = r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r tenantRepo) FindTenant(ctx context.Context, id string) (tenant.Tenant, error) {
	var m tenantModel
	err := r.db.NewSelect().Model(&m).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return tenant.Tenant{}, core.NotFound(core.CodeTenantNotFound, "tenant")
	}
	return m.domain(), err
}

// FindTenantForUser reads the owned tenant through the owner's lookup row (one shard), then
// the tenant by id (its own shard); without one, the user's first membership.
func (r tenantRepo) FindTenantForUser(ctx context.Context, userID string) (tenant.Tenant, *tenant.Member, error) {
	owned, ok, err := lookupTenant(ctx, rawQuerier(r.db), userID, lookupTenantOwner)
	if err != nil {
		return tenant.Tenant{}, nil, err
	}
	if ok {
		t, err := r.FindTenant(ctx, owned)
		return t, nil, err
	}
	mem, found, err := r.firstMembership(ctx, userID)
	if err != nil {
		return tenant.Tenant{}, nil, err
	}
	if !found {
		return tenant.Tenant{}, nil, core.NotFound(core.CodeTenantNotFound, "tenant")
	}
	t, err := r.FindTenant(ctx, mem.TenantID)
	member := mem.domain()
	return t, &member, err
}

// firstMembership is the user's earliest accepted active membership. The user's lookup rows
// name the tenants it may belong to, and each tenant's members are read on its own shard, so
// resolving a session asks one shard per membership, not every shard.
func (r tenantRepo) firstMembership(ctx context.Context, userID string) (memberModel, bool, error) {
	tenants, err := lookupTenants(ctx, r.db, userID, lookupMemberUser)
	if err != nil {
		return memberModel{}, false, err
	}
	var best memberModel
	found := false
	for _, tenantID := range tenants {
		var mem memberModel
		err := r.db.NewSelect().Model(&mem).
			Where("tenant_id = ? AND identity_user_id = ? AND status = ?", tenantID, userID, tenant.MemberActive).
			OrderExpr("accepted_at ASC").Limit(1).Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return memberModel{}, false, err
		}
		if !found || earlier(mem.AcceptedAt, best.AcceptedAt) {
			best, found = mem, true
		}
	}
	return best, found, nil
}

// earlier orders acceptance times as ORDER BY accepted_at ASC does (NULLs last).
func earlier(a, b *time.Time) bool {
	return a != nil && (b == nil || a.Before(*b))
}

// LockUser takes a transaction-scoped advisory lock on the user id.
func (r tenantRepo) LockUser(ctx context.Context, userID string) error {
	_, err := r.db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 1))", "user:"+userID)
	return err
}
