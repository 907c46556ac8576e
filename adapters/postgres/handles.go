package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

type handleModel struct {
	bun.BaseModel `bun:"table:handles"`
	Environment   string    `bun:"environment,pk"`
	Handle        string    `bun:"handle,pk"`
	TenantID      string    `bun:"tenant_id,pk"`
	WalletID      string    `bun:"wallet_id"`
	DisplayName   *string   `bun:"display_name"`
	Verified      bool      `bun:"verified"`
	CreatedAt     time.Time `bun:"created_at"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

func (m handleModel) domain() ports.Handle {
	return ports.Handle{Environment: core.Environment(m.Environment), Handle: m.Handle, TenantID: m.TenantID,
		WalletID: m.WalletID, DisplayName: deref(m.DisplayName), Verified: m.Verified,
		CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()}
}

type handleRepo struct{ db bun.IDB }

// PutHandle inserts, or re-points the caller's own handle; another tenant's handle is taken.
// The handle's lookup row (written first, once) decides whose it is: the handle is global per
// environment while its row lives with its tenant's.
func (r handleRepo) PutHandle(ctx context.Context, h ports.Handle) (ports.Handle, error) {
	key := handleKey(h.Environment, h.Handle)
	q := rawQuerier(r.db)
	if _, err := q.ExecContext(ctx, insertLookupSQL+` ON CONFLICT DO NOTHING`, key, lookupHandle, h.TenantID); err != nil {
		return ports.Handle{}, err
	}
	owner, _, err := lookupTenant(ctx, q, key, lookupHandle)
	if err != nil {
		return ports.Handle{}, err
	}
	if owner != h.TenantID {
		return ports.Handle{}, core.E(core.CodeHandleTaken, "the handle %s belongs to another tenant", h.Handle)
	}
	m := handleModel{Environment: string(h.Environment), Handle: h.Handle, TenantID: h.TenantID, WalletID: h.WalletID,
		DisplayName: nullable(h.DisplayName), Verified: h.Verified, CreatedAt: h.CreatedAt, UpdatedAt: h.UpdatedAt}
	_, err = r.db.NewInsert().Model(&m).
		On("CONFLICT (tenant_id, environment, handle) DO UPDATE").
		Set("wallet_id = EXCLUDED.wallet_id, display_name = EXCLUDED.display_name, updated_at = EXCLUDED.updated_at").Exec(ctx)
	if err != nil {
		return ports.Handle{}, err
	}
	return r.find(ctx, h.TenantID, h.Environment, h.Handle)
}

// handleKey is a handle's lookup key: its environment and name.
func handleKey(env core.Environment, handle string) string { return string(env) + ":" + handle }

// FindHandle resolves a handle through its lookup row, then reads it on its tenant's shard.
func (r handleRepo) FindHandle(ctx context.Context, env core.Environment, handle string) (ports.Handle, error) {
	tenantID, ok, err := lookupTenant(ctx, rawQuerier(r.db), handleKey(env, handle), lookupHandle)
	if err != nil {
		return ports.Handle{}, err
	}
	if !ok {
		return ports.Handle{}, core.NotFound(core.CodeHandleNotFound, "handle")
	}
	return r.find(ctx, tenantID, env, handle)
}

func (r handleRepo) find(ctx context.Context, tenantID string, env core.Environment, handle string) (ports.Handle, error) {
	var m handleModel
	err := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND environment = ? AND handle = ?", tenantID, env, handle).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.Handle{}, core.NotFound(core.CodeHandleNotFound, "handle")
	}
	return m.domain(), err
}
