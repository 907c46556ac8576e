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
	TenantID      string    `bun:"tenant_id"`
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
func (r handleRepo) PutHandle(ctx context.Context, h ports.Handle) (ports.Handle, error) {
	m := handleModel{Environment: string(h.Environment), Handle: h.Handle, TenantID: h.TenantID, WalletID: h.WalletID,
		DisplayName: nullable(h.DisplayName), Verified: h.Verified, CreatedAt: h.CreatedAt, UpdatedAt: h.UpdatedAt}
	res, err := r.db.NewInsert().Model(&m).
		On("CONFLICT (environment, handle) DO UPDATE").
		Set("wallet_id = EXCLUDED.wallet_id, display_name = EXCLUDED.display_name, updated_at = EXCLUDED.updated_at").
		Where("handle_model.tenant_id = EXCLUDED.tenant_id").Exec(ctx)
	if err != nil {
		return ports.Handle{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ports.Handle{}, core.E(core.CodeHandleTaken, "the handle %s belongs to another tenant", h.Handle)
	}
	return r.FindHandle(ctx, h.Environment, h.Handle)
}

func (r handleRepo) FindHandle(ctx context.Context, env core.Environment, handle string) (ports.Handle, error) {
	var m handleModel
	err := r.db.NewSelect().Model(&m).Where("environment = ? AND handle = ?", env, handle).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.Handle{}, core.NotFound(core.CodeHandleNotFound, "handle")
	}
	return m.domain(), err
}
