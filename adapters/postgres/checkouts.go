package postgres

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
)

var _ ports.CheckoutRepo = checkoutRepo{}

type checkoutModel struct {
	bun.BaseModel  `bun:"table:checkouts"`
	ID             string            `bun:"id,pk"`
	TenantID       string            `bun:"tenant_id,pk"`
	Environment    string            `bun:"environment"`
	ChainID        int64             `bun:"chain_id"`
	Amount         int64             `bun:"amount_base_units"`
	Currency       string            `bun:"currency"`
	Cryptocurrency string            `bun:"cryptocurrency"`
	Description    string            `bun:"description"`
	CustomerEmail  string            `bun:"customer_email"`
	CustomerName   string            `bun:"customer_name"`
	Metadata       map[string]string `bun:"metadata,type:jsonb"`
	DepositAddress string            `bun:"deposit_address"`
	StartBlock     int64             `bun:"start_block"`
	Status         string            `bun:"status"`
	Received       int64             `bun:"received"`
	Credited       int64             `bun:"credited"`
	Refunded       int64             `bun:"refunded"`
	TxHash         string            `bun:"transaction_hash"`
	Confirmations  int64             `bun:"confirmations"`
	PayerAddress   string            `bun:"payer_address"`
	FailureReason  string            `bun:"failure_reason"`
	SweepTxHash    string            `bun:"sweep_tx_hash"`
	ExpiresAt      time.Time         `bun:"expires_at"`
	WatchUntil     time.Time         `bun:"watch_until"`
	CreatedAt      time.Time         `bun:"created_at"`
	UpdatedAt      time.Time         `bun:"updated_at"`
	CompletedAt    *time.Time        `bun:"completed_at"`
}

func checkoutFromDomain(c checkout.Checkout) checkoutModel {
	meta := c.Metadata
	if meta == nil {
		meta = map[string]string{}
	}
	return checkoutModel{ID: c.ID, TenantID: c.TenantID, Environment: string(c.Environment), ChainID: c.ChainID, Amount: c.Amount,
		Currency: c.Currency, Cryptocurrency: c.Cryptocurrency, Description: c.Description, CustomerEmail: c.CustomerEmail,
		CustomerName: c.CustomerName, Metadata: meta, DepositAddress: c.DepositAddress, StartBlock: int64(c.StartBlock), //nolint:gosec // block numbers fit
		Status: string(c.Status), Received: c.Received, Credited: c.Credited, Refunded: c.Refunded, TxHash: c.TransactionHash,
		Confirmations: c.Confirmations, PayerAddress: c.PayerAddress, FailureReason: c.FailureReason, SweepTxHash: c.SweepTxHash,
		ExpiresAt: c.ExpiresAt, WatchUntil: c.WatchUntil, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, CompletedAt: c.CompletedAt}
}

func (m checkoutModel) domain() (checkout.Checkout, error) {
	c := checkout.Checkout{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), ChainID: m.ChainID,
		Amount: m.Amount, Currency: m.Currency, Cryptocurrency: m.Cryptocurrency, Description: m.Description,
		CustomerEmail: m.CustomerEmail, CustomerName: m.CustomerName, Metadata: m.Metadata, DepositAddress: m.DepositAddress,
		StartBlock: uint64(m.StartBlock), Status: checkout.Status(m.Status), Received: m.Received, Credited: m.Credited, //nolint:gosec // checked non-negative
		Refunded: m.Refunded, TransactionHash: m.TxHash, Confirmations: m.Confirmations, PayerAddress: m.PayerAddress,
		FailureReason: m.FailureReason, SweepTxHash: m.SweepTxHash, ExpiresAt: m.ExpiresAt.UTC(), WatchUntil: m.WatchUntil.UTC(),
		CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(), CompletedAt: utcPtr(m.CompletedAt)}
	return c, c.Validate()
}

type checkoutRefundModel struct {
	bun.BaseModel `bun:"table:checkout_refunds"`
	ID            string    `bun:"id,pk"`
	CheckoutID    string    `bun:"checkout_id"`
	TenantID      string    `bun:"tenant_id,pk"`
	Environment   string    `bun:"environment"`
	Amount        int64     `bun:"amount_base_units"`
	Destination   string    `bun:"destination"`
	Status        string    `bun:"status"`
	TxHash        string    `bun:"tx_hash"`
	CreatedAt     time.Time `bun:"created_at"`
	UpdatedAt     time.Time `bun:"updated_at"`
}

func refundFromDomain(r checkout.Refund) checkoutRefundModel {
	return checkoutRefundModel{ID: r.ID, CheckoutID: r.CheckoutID, TenantID: r.TenantID, Environment: string(r.Environment),
		Amount: r.Amount, Destination: r.Destination, Status: string(r.Status), TxHash: r.TxHash, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func (m checkoutRefundModel) domain() (checkout.Refund, error) {
	r := checkout.Refund{ID: m.ID, CheckoutID: m.CheckoutID, TenantID: m.TenantID, Environment: core.Environment(m.Environment),
		Amount: m.Amount, Destination: m.Destination, Status: checkout.RefundStatus(m.Status), TxHash: m.TxHash,
		CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()}
	return r, r.Validate()
}

type checkoutRepo struct{ db bun.IDB }

func (r checkoutRepo) CreateCheckout(ctx context.Context, c checkout.Checkout) error {
	if err := c.Validate(); err != nil {
		return err
	}
	m := checkoutFromDomain(c)
	if _, err := r.db.NewInsert().Model(&m).Exec(ctx); err != nil {
		return err
	}
	// The id's and the deposit address's lookup rows, in the checkout's unit of work: the
	// address stays unique across tenants, as the address's own constraint was per tenant.
	q := rawQuerier(r.db)
	if err := addLookup(ctx, q, c.ID, lookupCheckout, c.TenantID); err != nil {
		return err
	}
	return addLookup(ctx, q, c.DepositAddress, lookupCheckoutDeposit, c.TenantID)
}

func (r checkoutRepo) FindCheckout(ctx context.Context, tenantID string, env core.Environment, id string) (checkout.Checkout, error) {
	return oneRow[checkout.Checkout, checkoutModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id), checkout.ErrNotFound)
}

// FindPublicCheckout runs before the tenant is known: the id's lookup row names the tenant,
// and the checkout is then read on the tenant's shard.
func (r checkoutRepo) FindPublicCheckout(ctx context.Context, id string) (checkout.Checkout, error) {
	tenantID, ok, err := lookupTenant(ctx, rawQuerier(r.db), id, lookupCheckout)
	if err != nil {
		return checkout.Checkout{}, err
	}
	if !ok {
		return checkout.Checkout{}, checkout.ErrNotFound
	}
	return oneRow[checkout.Checkout, checkoutModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND id = ?", tenantID, id), checkout.ErrNotFound)
}

func (r checkoutRepo) LockCheckout(ctx context.Context, tenantID, id string) (checkout.Checkout, error) {
	return oneRow[checkout.Checkout, checkoutModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND id = ?", tenantID, id).For("UPDATE"),
		checkout.ErrNotFound)
}

func (r checkoutRepo) UpdateCheckout(ctx context.Context, c checkout.Checkout) error {
	if err := c.Validate(); err != nil {
		return err
	}
	m := checkoutFromDomain(c)
	_, err := r.db.NewUpdate().Model(&m).Column("status", "received", "credited", "refunded", "transaction_hash", "confirmations",
		"payer_address", "failure_reason", "sweep_tx_hash", "expires_at", "watch_until", "updated_at", "completed_at").WherePK().Exec(ctx)
	return err
}

func (r checkoutRepo) ListCheckouts(ctx context.Context, q ports.CheckoutQuery, page ports.Page) ([]checkout.Checkout, int, error) {
	var rows []checkoutModel
	sel := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", q.TenantID, q.Environment)
	if q.Status != "" {
		sel = sel.Where("status = ?", q.Status)
	}
	if !q.From.IsZero() {
		sel = sel.Where("created_at >= ?", q.From)
	}
	if !q.To.IsZero() {
		sel = sel.Where("created_at < ?", q.To)
	}
	total, err := sel.OrderExpr("created_at DESC, id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[checkout.Checkout](rows)
	return out, int(total), err
}

func (r checkoutRepo) ListWatched(ctx context.Context, env core.Environment, now time.Time, after string, limit int) ([]checkout.Checkout, error) {
	var rows []checkoutModel
	err := r.db.NewSelect().Model(&rows).Where("environment = ? AND watch_until > ? AND id > ?", env, now, after).
		OrderExpr("id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, err
	}
	return domainRows[checkout.Checkout](rows)
}

func (r checkoutRepo) CreateRefund(ctx context.Context, x checkout.Refund) error {
	if err := x.Validate(); err != nil {
		return err
	}
	m := refundFromDomain(x)
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r checkoutRepo) UpdateRefund(ctx context.Context, x checkout.Refund) error {
	if err := x.Validate(); err != nil {
		return err
	}
	m := refundFromDomain(x)
	_, err := r.db.NewUpdate().Model(&m).Column("status", "tx_hash", "updated_at").WherePK().Exec(ctx)
	return err
}

// RefundedInWindows sums the tenant's refunds per window in one scan of the widest window; a
// refund is posted when it is created and never returns to the balance, so every one counts.
func (r checkoutRepo) RefundedInWindows(ctx context.Context, env core.Environment, tenantID string, w policy.Windows) (policy.Spend, error) {
	const capped = "LEAST(COALESCE(SUM(amount_base_units) FILTER (WHERE created_at >= ? AND created_at < ?), 0), 9223372036854775807)::bigint"
	span := w.Span()
	var s policy.Spend
	err := r.db.NewSelect().Model((*checkoutRefundModel)(nil)).
		ColumnExpr(capped, w.Daily.Start, w.Daily.End).
		ColumnExpr(capped, w.Weekly.Start, w.Weekly.End).
		ColumnExpr(capped, w.Monthly.Start, w.Monthly.End).
		Where("environment = ? AND tenant_id = ?", env, tenantID).
		Where("created_at >= ? AND created_at < ?", span.Start, span.End).
		Scan(ctx, &s.Daily, &s.Weekly, &s.Monthly)
	return s, err
}

func (r checkoutRepo) ListRefunds(ctx context.Context, tenantID, checkoutID string) ([]checkout.Refund, error) {
	var rows []checkoutRefundModel
	if err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND checkout_id = ?", tenantID, checkoutID).OrderExpr("id").Scan(ctx); err != nil {
		return nil, err
	}
	return domainRows[checkout.Refund](rows)
}
