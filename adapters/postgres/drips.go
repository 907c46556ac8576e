package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

type dripModel struct {
	bun.BaseModel   `bun:"table:drips"`
	ID              string     `bun:"id,pk"`
	TenantID        string     `bun:"tenant_id,pk"`
	Environment     string     `bun:"environment"`
	WalletID        string     `bun:"wallet_id"`
	Address         string     `bun:"address"`
	ChainID         int64      `bun:"chain_id"`
	Asset           string     `bun:"asset"`
	AmountBaseUnits int64      `bun:"amount_base_units"`
	Status          string     `bun:"status"`
	TxHash          *string    `bun:"tx_hash"`
	FailureReason   *string    `bun:"failure_reason"`
	SendStartedAt   *time.Time `bun:"send_started_at"`
	SendFromBlock   int64      `bun:"send_from_block"`
	Purpose         string     `bun:"purpose"`
	CreatedAt       time.Time  `bun:"created_at"`
	UpdatedAt       time.Time  `bun:"updated_at"`
}

func dripFromDomain(d wallet.Drip) dripModel {
	return dripModel{
		ID: d.ID, TenantID: d.TenantID, Environment: string(d.Environment), WalletID: d.WalletID, Address: d.Address,
		ChainID: d.ChainID, Asset: string(d.Asset), AmountBaseUnits: d.AmountBaseUnits, Status: string(d.Status),
		TxHash: nullable(d.TxHash), FailureReason: nullable(d.FailureReason), SendStartedAt: d.SendStartedAt,
		SendFromBlock: int64Column(d.SendFromBlock), Purpose: string(dripPurpose(d.Purpose)), CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
	}
}

// domain converts a row back, checking what the state machine guarantees.
func (m dripModel) domain() (wallet.Drip, error) {
	d := wallet.Drip{
		ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), WalletID: m.WalletID,
		Address: m.Address, ChainID: m.ChainID, Asset: wallet.Asset(m.Asset), AmountBaseUnits: m.AmountBaseUnits,
		Status: wallet.DripStatus(m.Status), TxHash: deref(m.TxHash), FailureReason: deref(m.FailureReason),
		SendStartedAt: utcPtr(m.SendStartedAt), SendFromBlock: uint64(max(m.SendFromBlock, 0)),
		Purpose:   wallet.DripPurpose(m.Purpose),
		CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
	}
	if d.AmountBaseUnits <= 0 || (d.Asset != wallet.AssetUSDC && d.Asset != wallet.AssetETH) {
		return wallet.Drip{}, fmt.Errorf("postgres: drip %s has asset %q amount %d", m.ID, m.Asset, m.AmountBaseUnits)
	}
	return d, nil
}

type dripRepo struct{ db bun.IDB }

var errDripNotFound = core.NotFound(core.CodeDripNotFound, "drip")

func (r dripRepo) CreateDrip(ctx context.Context, d wallet.Drip) error {
	m := dripFromDomain(d)
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r dripRepo) FindDrip(ctx context.Context, tenantID string, env core.Environment, id string) (wallet.Drip, error) {
	return oneRow[wallet.Drip, dripModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id), errDripNotFound)
}

func (r dripRepo) LockDrip(ctx context.Context, tenantID, id string) (wallet.Drip, error) {
	tenantID, err := tenantOfRow(ctx, r.db, "drips", tenantID, id)
	if err != nil {
		return wallet.Drip{}, err
	}
	return oneRow[wallet.Drip, dripModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND id = ?", tenantID, id).For("UPDATE"), errDripNotFound)
}

func (r dripRepo) UpdateDrip(ctx context.Context, d wallet.Drip) error {
	m := dripFromDomain(d)
	_, err := r.db.NewUpdate().Model(&m).WherePK().Exec(ctx)
	return err
}

// filtered selects faucet drips only: an on-ramp's credit is listed and counted by ramps.
func (r dripRepo) filtered(q *bun.SelectQuery, f ports.DripFilter) *bun.SelectQuery {
	q = q.Where("tenant_id = ? AND environment = ? AND purpose = ?", f.TenantID, f.Environment, string(wallet.DripForFaucet))
	if f.WalletID != "" {
		q = q.Where("wallet_id = ?", f.WalletID)
	}
	return q
}

func (r dripRepo) ListDrips(ctx context.Context, f ports.DripFilter, page ports.Page) ([]wallet.Drip, int, error) {
	var rows []dripModel
	total, err := r.filtered(r.db.NewSelect().Model(&rows), f).
		OrderExpr("id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[wallet.Drip](rows)
	if err != nil {
		return nil, 0, err
	}
	return out, int(total), nil
}

// LockFaucet takes a transaction-scoped advisory lock keyed by the tenant.
func (r dripRepo) LockFaucet(ctx context.Context, tenantID string) error {
	_, err := r.db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", "faucet:"+tenantID)
	return err
}

func (r dripRepo) NthNewestDripSince(ctx context.Context, f ports.DripFilter, since time.Time, n int) (time.Time, bool, error) {
	if n < 1 {
		return time.Time{}, false, fmt.Errorf("postgres: NthNewestDripSince needs n >= 1, got %d", n)
	}
	var at []time.Time
	err := r.filtered(r.db.NewSelect().Model((*dripModel)(nil)).Column("created_at"), f).
		Where("created_at > ?", since).OrderExpr("created_at DESC").Offset(int64(n-1)).Limit(1).Scan(ctx, &at)
	if err != nil || len(at) == 0 {
		return time.Time{}, false, err
	}
	return at[0].UTC(), true, nil
}

func (r dripRepo) DripTxHashUsed(ctx context.Context, tenantID string, chainID int64, txHash string) (bool, error) {
	return r.db.NewSelect().Model((*dripModel)(nil)).Where("tenant_id = ? AND chain_id = ? AND tx_hash = ?", tenantID, chainID, txHash).Exists(ctx)
}

func dripPurpose(p wallet.DripPurpose) wallet.DripPurpose {
	if p == "" {
		return wallet.DripForFaucet
	}
	return p
}
