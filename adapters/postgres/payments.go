package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"math/big"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

type paymentSignatureJSON struct {
	Signer   string    `json:"signer"`
	Value    string    `json:"signature"`
	SignedAt time.Time `json:"signedAt"`
}

type paymentModel struct {
	bun.BaseModel       `bun:"table:safe_payments"`
	ID                  string          `bun:"id,pk"`
	TenantID            string          `bun:"tenant_id,pk"`
	Environment         string          `bun:"environment"`
	SourceWalletID      string          `bun:"source_wallet_id"`
	SafeAddress         string          `bun:"safe_address"`
	ChainID             int64           `bun:"chain_id"`
	DestinationType     string          `bun:"destination_type"`
	DestinationHandle   *string         `bun:"destination_handle"`
	DestinationAddress  string          `bun:"destination_address"`
	DestinationWalletID *string         `bun:"destination_wallet_id"`
	DestinationChainID  int64           `bun:"destination_chain_id"`
	Asset               string          `bun:"asset"`
	AmountBaseUnits     int64           `bun:"amount_base_units"`
	Memo                *string         `bun:"memo"`
	Status              string          `bun:"status"`
	SafeNonce           int64           `bun:"safe_nonce"`
	SafeTxHash          *string         `bun:"safe_tx_hash"`
	Threshold           int             `bun:"threshold"`
	Signatures          json.RawMessage `bun:"signatures,type:jsonb"`
	ExecutedTxHash      *string         `bun:"executed_tx_hash"`
	FailureReason       *string         `bun:"failure_reason"`
	CreatedAt           time.Time       `bun:"created_at"`
	UpdatedAt           time.Time       `bun:"updated_at"`
	Kind                string          `bun:"kind"`
	CallValue           *string         `bun:"call_value"`
	CallData            []byte          `bun:"call_data"`
	RejectionPaymentID  *string         `bun:"rejection_payment_id"`
	RejectsPaymentID    *string         `bun:"rejects_payment_id"`
}

func paymentFromDomain(p safepay.Payment) (paymentModel, error) {
	sigs := make([]paymentSignatureJSON, len(p.Signatures))
	for i, s := range p.Signatures {
		sigs[i] = paymentSignatureJSON{Signer: s.Signer, Value: s.Value, SignedAt: s.SignedAt}
	}
	raw, err := json.Marshal(sigs)
	return paymentModel{
		ID: p.ID, TenantID: p.TenantID, Environment: string(p.Environment), SourceWalletID: p.SourceWalletID,
		SafeAddress: p.SafeAddress, ChainID: p.ChainID, DestinationType: string(p.DestinationType),
		DestinationHandle: nullable(p.DestinationHandle), DestinationAddress: p.DestinationAddress,
		DestinationWalletID: nullable(p.DestinationWallet), DestinationChainID: p.DestinationChainID,
		Asset: p.Asset, AmountBaseUnits: p.AmountBaseUnits, Memo: nullable(p.Memo), Status: string(p.Status),
		SafeNonce: int64Column(p.SafeNonce), SafeTxHash: nullable(p.SafeTxHash), Threshold: p.Threshold, Signatures: raw,
		ExecutedTxHash: nullable(p.ExecutedTxHash), FailureReason: nullable(p.FailureReason),
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Kind: string(paymentKind(p)),
		CallValue: callValue(p.Call), CallData: callData(p.Call),
		RejectionPaymentID: nullable(p.RejectionPaymentID), RejectsPaymentID: nullable(p.RejectsPaymentID),
	}, err
}

func paymentKind(p safepay.Payment) safepay.Kind {
	if p.Kind == "" {
		return safepay.KindTransfer
	}
	return p.Kind
}

func callValue(c *safepay.Call) *string {
	if c == nil {
		return nil
	}
	v := c.ValueWei.String()
	return &v
}

func callData(c *safepay.Call) []byte {
	if c == nil {
		return nil
	}
	if c.Data == nil {
		return []byte{}
	}
	return c.Data
}

func (m paymentModel) domain() (safepay.Payment, error) {
	var sigs []paymentSignatureJSON
	if err := json.Unmarshal(m.Signatures, &sigs); err != nil {
		return safepay.Payment{}, err
	}
	nonce, err := uint64Column("safe_nonce", m.SafeNonce)
	if err != nil {
		return safepay.Payment{}, err
	}
	p := safepay.Payment{
		ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), SourceWalletID: m.SourceWalletID,
		SafeAddress: m.SafeAddress, ChainID: m.ChainID, DestinationType: safepay.DestinationType(m.DestinationType),
		DestinationHandle: deref(m.DestinationHandle), DestinationAddress: m.DestinationAddress,
		DestinationWallet: deref(m.DestinationWalletID), DestinationChainID: m.DestinationChainID,
		Asset: m.Asset, AmountBaseUnits: m.AmountBaseUnits, Memo: deref(m.Memo), Status: safepay.Status(m.Status),
		SafeNonce: nonce, SafeTxHash: deref(m.SafeTxHash), Threshold: m.Threshold,
		ExecutedTxHash: deref(m.ExecutedTxHash), FailureReason: deref(m.FailureReason),
		RejectionPaymentID: deref(m.RejectionPaymentID), RejectsPaymentID: deref(m.RejectsPaymentID),
		CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
	}
	switch safepay.Kind(m.Kind) {
	case safepay.KindTransfer:
		p.Kind = safepay.KindTransfer
	case safepay.KindTransaction:
		v, ok := new(big.Int).SetString(deref(m.CallValue), 10)
		if !ok || m.CallData == nil {
			return safepay.Payment{}, core.E(core.CodeInternal, "payment %s: a transaction without its call", m.ID)
		}
		p.Kind, p.Call = safepay.KindTransaction, &safepay.Call{To: m.DestinationAddress, ValueWei: v, Data: m.CallData}
	default:
		return safepay.Payment{}, core.E(core.CodeInternal, "payment %s has unknown kind %q", m.ID, m.Kind)
	}
	for _, s := range sigs {
		p.Signatures = append(p.Signatures, safepay.Signature{Signer: s.Signer, Value: s.Value, SignedAt: s.SignedAt.UTC()})
	}
	return p, nil
}

type paymentRepo struct{ db bun.IDB }

var errPaymentNotFound = core.NotFound(safepay.CodePaymentNotFound, "payment")

func (r paymentRepo) CreatePayment(ctx context.Context, p safepay.Payment) error {
	m, err := paymentFromDomain(p)
	if err != nil {
		return err
	}
	_, err = r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r paymentRepo) FindPayment(ctx context.Context, tenantID string, env core.Environment, id string) (safepay.Payment, error) {
	return oneRow[safepay.Payment, paymentModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id), errPaymentNotFound)
}

func (r paymentRepo) LockPayment(ctx context.Context, tenantID, id string) (safepay.Payment, error) {
	tenantID, err := tenantOfRow(ctx, r.db, "safe_payments", tenantID, id)
	if err != nil {
		return safepay.Payment{}, err
	}
	return oneRow[safepay.Payment, paymentModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND id = ?", tenantID, id).For("UPDATE"), errPaymentNotFound)
}

func (r paymentRepo) ListPayments(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]safepay.Payment, int, error) {
	var rows []paymentModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", tenantID, env).
		OrderExpr("id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[safepay.Payment](rows)
	if err != nil {
		return nil, 0, err
	}
	return out, int(total), nil
}

func (r paymentRepo) UpdatePayment(ctx context.Context, p safepay.Payment) error {
	m, err := paymentFromDomain(p)
	if err != nil {
		return err
	}
	_, err = r.db.NewUpdate().Model(&m).WherePK().Exec(ctx)
	return err
}

func (r paymentRepo) HighestNonceInUse(ctx context.Context, tenantID, walletID string) (uint64, bool, error) {
	var nonce sql.NullInt64
	err := r.db.NewRaw(`SELECT max(safe_nonce) FROM safe_payments WHERE tenant_id = ? AND source_wallet_id = ?
		AND status IN ('CREATED', 'AWAITING_SIGNATURE', 'SIGNING', 'READY_TO_EXECUTE', 'EXECUTING', 'COMPLETED')`, tenantID, walletID).Scan(ctx, &nonce)
	if err != nil || !nonce.Valid {
		return 0, false, err
	}
	highest, err := uint64Column("safe_nonce", nonce.Int64)
	return highest, err == nil, err
}

func (r paymentRepo) ListQueuedPayments(ctx context.Context, tenantID, walletID string, afterNonce uint64, limit int) ([]safepay.Payment, error) {
	var rows []paymentModel
	err := r.db.NewSelect().Model(&rows).
		Where("tenant_id = ? AND source_wallet_id = ? AND safe_nonce > ?", tenantID, walletID, int64Column(afterNonce)).
		Where("status IN ('CREATED', 'AWAITING_SIGNATURE', 'SIGNING', 'READY_TO_EXECUTE', 'EXECUTING')").
		OrderExpr("safe_nonce ASC, id ASC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, err
	}
	return domainRows[safepay.Payment](rows)
}

func (r paymentRepo) ListStalePayments(ctx context.Context, status safepay.Status, updatedBefore time.Time, limit int) ([]safepay.Payment, error) {
	var rows []paymentModel
	err := r.db.NewSelect().Model(&rows).Where("status = ? AND updated_at < ?", string(status), updatedBefore).
		OrderExpr("updated_at ASC, id ASC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, err
	}
	return domainRows[safepay.Payment](rows)
}
