package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/ports"
)

var (
	errInvoiceNotFound = core.NotFound(invoice.CodeInvoiceNotFound, "invoice")
	errBillNotFound    = core.NotFound(invoice.CodeBillNotFound, "bill")
)

type invoiceModel struct {
	bun.BaseModel      `bun:"table:invoices"`
	ID                 string     `bun:"id,pk"`
	TenantID           string     `bun:"tenant_id,pk"`
	Environment        string     `bun:"environment"`
	PayeeName          string     `bun:"payee_name"`
	Description        string     `bun:"description"`
	Amount             int64      `bun:"amount_base_units"`
	PayerAddress       string     `bun:"payer_address"`
	PayeeAddress       string     `bun:"payee_address"`
	ArbiterAddress     string     `bun:"arbiter_address"`
	ChainID            int64      `bun:"chain_id"`
	Status             string     `bun:"status"`
	HoldWalletID       *string    `bun:"hold_wallet_id"`
	HoldAddress        string     `bun:"hold_address,scanonly"`
	ReleasePaymentID   *string    `bun:"release_payment_id"`
	RefundPaymentID    *string    `bun:"refund_payment_id"`
	Evidence           string     `bun:"evidence"`
	ExpiresAt          *time.Time `bun:"expires_at"`
	FundedAt           *time.Time `bun:"funded_at"`
	ClockOffsetSeconds int64      `bun:"clock_offset_seconds"`
	CreatedAt          time.Time  `bun:"created_at"`
	UpdatedAt          time.Time  `bun:"updated_at"`
}

func (m invoiceModel) domain() (invoice.Invoice, error) {
	i := invoice.Invoice{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), PayeeName: m.PayeeName,
		Description: m.Description, AmountBaseUnits: m.Amount, PayerAddress: m.PayerAddress, PayeeAddress: m.PayeeAddress,
		ArbiterAddress: m.ArbiterAddress, ChainID: m.ChainID, Status: invoice.Status(m.Status), HoldWalletID: deref(m.HoldWalletID),
		HoldAddress: m.HoldAddress, ReleasePaymentID: deref(m.ReleasePaymentID), RefundPaymentID: deref(m.RefundPaymentID),
		Evidence: m.Evidence, ExpiresAt: utcPtr(m.ExpiresAt), FundedAt: utcPtr(m.FundedAt), ClockOffsetSeconds: m.ClockOffsetSeconds,
		CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()}
	if !i.Status.Valid() || i.AmountBaseUnits <= 0 {
		return invoice.Invoice{}, fmt.Errorf("postgres: invoice %s has status %q and amount %d", m.ID, m.Status, m.Amount)
	}
	return i, nil
}

func invoiceFromDomain(i invoice.Invoice) invoiceModel {
	return invoiceModel{ID: i.ID, TenantID: i.TenantID, Environment: string(i.Environment), PayeeName: i.PayeeName,
		Description: i.Description, Amount: i.AmountBaseUnits, PayerAddress: i.PayerAddress, PayeeAddress: i.PayeeAddress,
		ArbiterAddress: i.ArbiterAddress, ChainID: i.ChainID, Status: string(i.Status), HoldWalletID: nullable(i.HoldWalletID),
		ReleasePaymentID: nullable(i.ReleasePaymentID), RefundPaymentID: nullable(i.RefundPaymentID), Evidence: i.Evidence,
		ExpiresAt: i.ExpiresAt, FundedAt: i.FundedAt, ClockOffsetSeconds: i.ClockOffsetSeconds, CreatedAt: i.CreatedAt, UpdatedAt: i.UpdatedAt}
}

type billModel struct {
	bun.BaseModel           `bun:"table:bills"`
	ID                      string    `bun:"id,pk"`
	Environment             string    `bun:"environment"`
	SenderTenantID          string    `bun:"sender_tenant_id"`
	PayerTenantID           string    `bun:"payer_tenant_id,pk"`
	Amount                  int64     `bun:"amount_base_units"`
	PayerAddress            string    `bun:"payer_address"`
	PayeeAddress            string    `bun:"payee_address"`
	PayeeName               string    `bun:"payee_name"`
	Description             string    `bun:"description"`
	ChainID                 int64     `bun:"chain_id"`
	SenderAddress           string    `bun:"sender_address"`
	Signature               string    `bun:"signature"`
	SigNonce                string    `bun:"sig_nonce"`
	SigExpiresAt            time.Time `bun:"sig_expires_at"`
	DocHash                 string    `bun:"doc_hash"`
	DomainChainID           int64     `bun:"domain_chain_id"`
	DomainVerifyingContract string    `bun:"domain_verifying_contract"`
	VerificationStatus      string    `bun:"verification_status"`
	FailureReason           string    `bun:"failure_reason"`
	PayerDecision           *string   `bun:"payer_decision"`
	PayerPaymentID          *string   `bun:"payer_payment_id"`
	CreatedAt               time.Time `bun:"created_at"`
}

func (m billModel) domain() (invoice.Bill, error) {
	b := invoice.Bill{ID: m.ID, Environment: core.Environment(m.Environment), SenderTenantID: m.SenderTenantID,
		PayerTenantID: m.PayerTenantID, AmountBaseUnits: m.Amount, PayerAddress: m.PayerAddress, PayeeAddress: m.PayeeAddress,
		PayeeName: m.PayeeName, Description: m.Description, ChainID: m.ChainID, SenderAddress: m.SenderAddress,
		Signature: m.Signature, SigNonce: m.SigNonce, SigExpiresAt: m.SigExpiresAt.UTC(), DocHash: m.DocHash,
		DomainChainID: m.DomainChainID, DomainVerifyingContract: m.DomainVerifyingContract,
		VerificationStatus: invoice.Verification(m.VerificationStatus), FailureReason: m.FailureReason,
		PayerDecision: deref(m.PayerDecision), PayerPaymentID: deref(m.PayerPaymentID), CreatedAt: m.CreatedAt.UTC()}
	if !b.VerificationStatus.Valid() || b.AmountBaseUnits <= 0 {
		return invoice.Bill{}, fmt.Errorf("postgres: bill %s has status %q and amount %d", m.ID, m.VerificationStatus, m.Amount)
	}
	return b, nil
}

func billFromDomain(b invoice.Bill) billModel {
	return billModel{ID: b.ID, Environment: string(b.Environment), SenderTenantID: b.SenderTenantID, PayerTenantID: b.PayerTenantID,
		Amount: b.AmountBaseUnits, PayerAddress: b.PayerAddress, PayeeAddress: b.PayeeAddress, PayeeName: b.PayeeName,
		Description: b.Description, ChainID: b.ChainID, SenderAddress: b.SenderAddress, Signature: b.Signature, SigNonce: b.SigNonce,
		SigExpiresAt: b.SigExpiresAt, DocHash: b.DocHash, DomainChainID: b.DomainChainID, DomainVerifyingContract: b.DomainVerifyingContract,
		VerificationStatus: string(b.VerificationStatus), FailureReason: b.FailureReason, PayerDecision: nullable(b.PayerDecision),
		PayerPaymentID: nullable(b.PayerPaymentID), CreatedAt: b.CreatedAt}
}

type invoiceRepo struct{ db bun.IDB }

var _ ports.InvoiceRepo = invoiceRepo{}

// invoiceSelect reads invoices with their hold Safe's address. The join names the tenant, so
// once wallets are distributed with invoices it stays on the tenant's shard group.
func (r invoiceRepo) invoiceSelect(rows any) *bun.SelectQuery {
	return r.db.NewSelect().Model(rows).ColumnExpr("inv.*").ColumnExpr("COALESCE(w.address, '') AS hold_address").
		ModelTableExpr("invoices AS inv").
		Join("LEFT JOIN wallets AS w ON w.tenant_id = inv.tenant_id AND w.id = inv.hold_wallet_id")
}

func (r invoiceRepo) oneInvoice(ctx context.Context, q *bun.SelectQuery, m *invoiceModel) (invoice.Invoice, error) {
	err := q.Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return invoice.Invoice{}, errInvoiceNotFound
	}
	if err != nil {
		return invoice.Invoice{}, err
	}
	return m.domain()
}

func (r invoiceRepo) CreateInvoice(ctx context.Context, i invoice.Invoice) error {
	m := invoiceFromDomain(i)
	if _, err := r.db.NewInsert().Model(&m).Exec(ctx); err != nil {
		return err
	}
	return addLookup(ctx, rawQuerier(r.db), i.ID, lookupInvoice, i.TenantID)
}

func (r invoiceRepo) FindInvoice(ctx context.Context, tenantID string, env core.Environment, id string) (invoice.Invoice, error) {
	var m invoiceModel
	return r.oneInvoice(ctx, r.invoiceSelect(&m).Where("inv.tenant_id = ? AND inv.environment = ? AND inv.id = ?", tenantID, env, id), &m)
}

// FindPublicInvoice runs before the tenant is known: the id's lookup row names the tenant, and
// the invoice is then read on the tenant's shard.
func (r invoiceRepo) FindPublicInvoice(ctx context.Context, id string) (invoice.Invoice, error) {
	tenantID, ok, err := lookupTenant(ctx, rawQuerier(r.db), id, lookupInvoice)
	if err != nil {
		return invoice.Invoice{}, err
	}
	if !ok {
		return invoice.Invoice{}, errInvoiceNotFound
	}
	var m invoiceModel
	return r.oneInvoice(ctx, r.invoiceSelect(&m).Where("inv.tenant_id = ? AND inv.id = ?", tenantID, id), &m)
}

// LockInvoice locks the row alone, then reads it with its hold Safe's address: a row lock is
// taken on the tenant's shard without a join the cluster would have to plan across nodes.
func (r invoiceRepo) LockInvoice(ctx context.Context, tenantID, id string) (invoice.Invoice, error) {
	var locked string
	err := r.db.NewSelect().Table("invoices").Column("id").Where("tenant_id = ? AND id = ?", tenantID, id).
		For("UPDATE").Scan(ctx, &locked)
	if errors.Is(err, sql.ErrNoRows) {
		return invoice.Invoice{}, errInvoiceNotFound
	}
	if err != nil {
		return invoice.Invoice{}, err
	}
	var m invoiceModel
	return r.oneInvoice(ctx, r.invoiceSelect(&m).Where("inv.tenant_id = ? AND inv.id = ?", tenantID, id), &m)
}

func (r invoiceRepo) UpdateInvoice(ctx context.Context, i invoice.Invoice) error {
	m := invoiceFromDomain(i)
	res, err := r.db.NewUpdate().Model(&m).Column("status", "hold_wallet_id", "release_payment_id", "refund_payment_id", "evidence",
		"funded_at", "clock_offset_seconds", "updated_at").WherePK().Exec(ctx)
	return oneRowAffected(res, err, errInvoiceNotFound)
}

func (r invoiceRepo) ListInvoices(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]invoice.Invoice, int, error) {
	var rows []invoiceModel
	total, err := r.invoiceSelect(&rows).Where("inv.tenant_id = ? AND inv.environment = ?", tenantID, env).
		OrderExpr("inv.created_at DESC, inv.id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows(rows)
	return out, int(total), err
}

func (r invoiceRepo) ListPollable(ctx context.Context, env core.Environment, afterID string, limit int) ([]invoice.Invoice, error) {
	var rows []invoiceModel
	err := r.invoiceSelect(&rows).Where("inv.environment = ? AND inv.id > ?", env, afterID).
		Where("inv.status = 'SENT' OR inv.release_payment_id IS NOT NULL OR inv.refund_payment_id IS NOT NULL").
		Where("inv.status NOT IN ('RELEASED', 'REFUNDED', 'CANCELLED')").
		OrderExpr("inv.id ASC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, err
	}
	return domainRows(rows)
}

// CreateBill stores a bill on its payer's shard. A VERIFIED bill first claims its signer's
// nonce with a lookup row (unique per environment, signer and nonce across every tenant), in a
// savepoint, so a replayed nonce leaves the caller's transaction usable.
func (r invoiceRepo) CreateBill(ctx context.Context, b invoice.Bill) error {
	m := billFromDomain(b)
	err := r.savepoint(ctx, func(db bun.IDB) error {
		if b.VerificationStatus == invoice.Verified {
			if err := addLookup(ctx, rawQuerier(db), billNonceKey(b), lookupBillNonce, b.SenderTenantID); err != nil {
				return err
			}
		}
		_, err := db.NewInsert().Model(&m).Exec(ctx)
		return err
	})
	// The same sender's replay meets the lookup's primary key, another sender's (a signer
	// registered with two tenants) its one-tenant index.
	if code, constraint := constraintOf(err); code == "23505" &&
		(constraint == "tenant_lookups_pkey" || constraint == "tenant_lookups_one_tenant") {
		return ports.ErrBillNonceUsed
	}
	return err
}

// billNonceKey is the lookup key of a signer's nonce: one per environment, signer and nonce.
func billNonceKey(b invoice.Bill) string {
	return string(b.Environment) + ":" + strings.ToLower(b.SenderAddress) + ":" + b.SigNonce
}

func (r invoiceRepo) savepoint(ctx context.Context, fn func(db bun.IDB) error) error {
	sp, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(sp); err != nil {
		_ = sp.Rollback()
		return err
	}
	return sp.Commit()
}

func (r invoiceRepo) FindInboundBill(ctx context.Context, payerTenantID string, env core.Environment, id string) (invoice.Bill, error) {
	return oneRow[invoice.Bill, billModel](ctx, r.db.NewSelect().Where("payer_tenant_id = ? AND environment = ? AND id = ?", payerTenantID, env, id), errBillNotFound)
}

func (r invoiceRepo) LockBill(ctx context.Context, payerTenantID, id string) (invoice.Bill, error) {
	return oneRow[invoice.Bill, billModel](ctx, r.db.NewSelect().Where("payer_tenant_id = ? AND id = ?", payerTenantID, id).
		For("UPDATE"), errBillNotFound)
}

func (r invoiceRepo) UpdateBill(ctx context.Context, b invoice.Bill) error {
	m := billFromDomain(b)
	res, err := r.db.NewUpdate().Model(&m).Column("payer_decision", "payer_payment_id").WherePK().Exec(ctx)
	return oneRowAffected(res, err, errBillNotFound)
}

func (r invoiceRepo) ListInboundBills(ctx context.Context, payerTenantID string, env core.Environment, status invoice.Verification, page ports.Page) ([]invoice.Bill, int, error) {
	var rows []billModel
	q := r.db.NewSelect().Model(&rows).Where("payer_tenant_id = ? AND environment = ?", payerTenantID, env)
	if status != "" {
		q = q.Where("verification_status = ?", status)
	}
	total, err := q.OrderExpr("created_at DESC, id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows(rows)
	return out, int(total), err
}

// WalletTenant reads the address's lookup row (one shard on Citus): an address is one tenant's
// in its environment, the tenant of the first wallet created at it.
func (r invoiceRepo) WalletTenant(ctx context.Context, env core.Environment, address string) (string, error) {
	tenantID, ok, err := lookupTenant(ctx, rawQuerier(r.db), walletAddressKey(env, address), lookupWalletAddress)
	if err == nil && !ok {
		return "", core.NotFound(core.CodeWalletNotFound, "wallet")
	}
	return tenantID, err
}

func (r invoiceRepo) ActiveSigner(ctx context.Context, tenantID, address string) (bool, error) {
	return r.db.NewSelect().Table("members").Where("tenant_id = ? AND status = 'ACTIVE' AND lower(signer_address) = lower(?)", tenantID, address).
		Exists(ctx)
}
