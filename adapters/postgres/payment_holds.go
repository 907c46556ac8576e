package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/ports"
)

// paymentHoldRepo stores the open holds of Safe payments (safe_payment_holds, migration 000083).
type paymentHoldRepo struct{ db bun.IDB }

type paymentHoldModel struct {
	bun.BaseModel   `bun:"table:safe_payment_holds"`
	TenantID        string    `bun:"tenant_id,pk"`
	PaymentID       string    `bun:"payment_id,pk"`
	WalletID        string    `bun:"wallet_id"`
	SafeNonce       int64     `bun:"safe_nonce"`
	AmountBaseUnits int64     `bun:"amount_base_units"`
	Recipient       string    `bun:"recipient"`
	TransferID      string    `bun:"transfer_id"`
	CreatedAt       time.Time `bun:"created_at"`
}

func (m paymentHoldModel) hold() ports.PaymentHold {
	return ports.PaymentHold{TenantID: m.TenantID, PaymentID: m.PaymentID, WalletID: m.WalletID,
		SafeNonce: uint64(max(m.SafeNonce, 0)), AmountBaseUnits: m.AmountBaseUnits, //nolint:gosec // a Safe nonce is stored from a uint64 below 2^63
		Recipient: m.Recipient, TransferID: m.TransferID, CreatedAt: m.CreatedAt}
}

func (r paymentHoldRepo) InsertPaymentHold(ctx context.Context, h ports.PaymentHold) error {
	m := paymentHoldModel{TenantID: h.TenantID, PaymentID: h.PaymentID, WalletID: h.WalletID,
		SafeNonce: int64(h.SafeNonce), AmountBaseUnits: h.AmountBaseUnits, //nolint:gosec // Safe nonces stay far below 2^63
		Recipient: h.Recipient, TransferID: h.TransferID, CreatedAt: h.CreatedAt}
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r paymentHoldRepo) LockPaymentHold(ctx context.Context, tenantID, paymentID string) (ports.PaymentHold, bool, error) {
	var m paymentHoldModel
	err := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND payment_id = ?", tenantID, paymentID).For("UPDATE").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.PaymentHold{}, false, nil
	}
	if err != nil {
		return ports.PaymentHold{}, false, err
	}
	return m.hold(), true, nil
}

func (r paymentHoldRepo) LockWalletPaymentHolds(ctx context.Context, tenantID, walletID string, limit int) ([]ports.PaymentHold, error) {
	var rows []paymentHoldModel
	err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND wallet_id = ?", tenantID, walletID).
		OrderExpr("safe_nonce, payment_id").Limit(int64(limit)).For("UPDATE").Scan(ctx)
	out := make([]ports.PaymentHold, len(rows))
	for i, m := range rows {
		out[i] = m.hold()
	}
	return out, err
}

func (r paymentHoldRepo) DeletePaymentHold(ctx context.Context, tenantID, paymentID string) error {
	_, err := r.db.NewDelete().Model((*paymentHoldModel)(nil)).Where("tenant_id = ? AND payment_id = ?", tenantID, paymentID).Exec(ctx)
	return err
}

func (r paymentHoldRepo) WalletPaymentHeld(ctx context.Context, tenantID, walletID string) (int64, error) {
	var held int64
	err := r.db.NewSelect().Model((*paymentHoldModel)(nil)).ColumnExpr("coalesce(sum(amount_base_units), 0)").
		Where("tenant_id = ? AND wallet_id = ?", tenantID, walletID).Scan(ctx, &held)
	return held, err
}
