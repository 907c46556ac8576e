package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

type offrampPaymentModel struct {
	bun.BaseModel          `bun:"table:offramp_payments"`
	SenderTenantID         string     `bun:"sender_tenant_id,pk"`
	ID                     string     `bun:"id,pk"`
	Environment            string     `bun:"environment"`
	RecipientTenantID      *string    `bun:"recipient_tenant_id"`
	RecipientPhoneHash     string     `bun:"recipient_phone_hash"`
	RecipientPhoneMasked   string     `bun:"recipient_phone_masked"`
	ClaimID                *string    `bun:"claim_id"`
	SourceChainKey         string     `bun:"source_chain_key"`
	SourceAssetID          string     `bun:"source_asset_id"`
	SourceAmountBaseUnits  int64      `bun:"source_amount_base_units"`
	FundingMode            string     `bun:"funding_mode"`
	RequestedDestinationID *string    `bun:"requested_destination_id"`
	SpeedPreference        string     `bun:"speed_preference"`
	Status                 string     `bun:"status"`
	HoldReasons            []string   `bun:"hold_reasons,array"`
	SelectedQuoteID        *string    `bun:"selected_quote_id"`
	QuoteSetVersion        int        `bun:"quote_set_version"`
	Reservation            int        `bun:"reservation"`
	HoldTransferID         *string    `bun:"hold_transfer_id"`
	Attempt                int        `bun:"attempt"`
	Provider               *string    `bun:"provider"`
	ProviderReference      *string    `bun:"provider_reference"`
	FailureReason          *string    `bun:"failure_reason"`
	RequoteReason          *string    `bun:"requote_reason"`
	DeliveredAt            *time.Time `bun:"delivered_at"`
	CreatedAt              time.Time  `bun:"created_at"`
	UpdatedAt              time.Time  `bun:"updated_at"`
}

func offrampFromDomain(p offramp.Payment) offrampPaymentModel {
	holds := make([]string, len(p.HoldReasons))
	for i, h := range p.HoldReasons {
		holds[i] = string(h)
	}
	return offrampPaymentModel{
		ID: p.ID, Environment: string(p.Environment), SenderTenantID: p.SenderTenantID,
		RecipientTenantID: nullable(p.RecipientTenantID), RecipientPhoneHash: p.RecipientPhoneHash,
		RecipientPhoneMasked: p.RecipientPhoneMasked, ClaimID: nullable(p.ClaimID), SourceChainKey: p.SourceChainKey,
		SourceAssetID: p.SourceAssetID, SourceAmountBaseUnits: p.SourceAmountBaseUnits, FundingMode: p.FundingMode,
		RequestedDestinationID: nullable(p.RequestedDestinationID), SpeedPreference: string(p.SpeedPreference),
		Status: string(p.Status), HoldReasons: holds, SelectedQuoteID: nullable(p.SelectedQuoteID),
		QuoteSetVersion: p.QuoteSetVersion, Reservation: p.Reservation, HoldTransferID: nullable(p.HoldTransferID),
		Attempt: p.Attempt, Provider: nullable(p.Provider), ProviderReference: nullable(p.ProviderReference),
		FailureReason: nullable(p.FailureReason), RequoteReason: nullable(string(p.RequoteReason)), DeliveredAt: p.DeliveredAt, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
}

func (m offrampPaymentModel) domain() (offramp.Payment, error) {
	holds := make([]offramp.HoldReason, len(m.HoldReasons))
	for i, h := range m.HoldReasons {
		holds[i] = offramp.HoldReason(h)
	}
	p := offramp.Payment{
		ID: m.ID, Environment: core.Environment(m.Environment), SenderTenantID: m.SenderTenantID,
		RecipientTenantID: deref(m.RecipientTenantID), RecipientPhoneHash: m.RecipientPhoneHash,
		RecipientPhoneMasked: m.RecipientPhoneMasked, ClaimID: deref(m.ClaimID), SourceChainKey: m.SourceChainKey,
		SourceAssetID: m.SourceAssetID, SourceAmountBaseUnits: m.SourceAmountBaseUnits, FundingMode: m.FundingMode,
		RequestedDestinationID: deref(m.RequestedDestinationID), SpeedPreference: offramp.SpeedPreference(m.SpeedPreference),
		Status: offramp.Status(m.Status), HoldReasons: holds, SelectedQuoteID: deref(m.SelectedQuoteID),
		QuoteSetVersion: m.QuoteSetVersion, Reservation: m.Reservation, HoldTransferID: deref(m.HoldTransferID),
		Attempt: m.Attempt, Provider: deref(m.Provider), ProviderReference: deref(m.ProviderReference),
		FailureReason: deref(m.FailureReason), RequoteReason: offramp.RequoteReason(deref(m.RequoteReason)), DeliveredAt: utcPtr(m.DeliveredAt),
		CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
	}
	if !p.Status.Valid() || p.SourceAmountBaseUnits <= 0 {
		return offramp.Payment{}, fmt.Errorf("postgres: off-ramp payment %s has status %q amount %d", m.ID, m.Status, m.SourceAmountBaseUnits)
	}
	return p, nil
}

type quoteModel struct {
	bun.BaseModel            `bun:"table:route_quotes"`
	TenantID                 string    `bun:"tenant_id,pk"`
	ID                       string    `bun:"id,pk"`
	PaymentID                string    `bun:"payment_id"`
	SetVersion               int       `bun:"set_version"`
	Position                 int       `bun:"position"`
	DestinationID            string    `bun:"destination_id"`
	DestinationType          string    `bun:"destination_type"`
	Provider                 string    `bun:"provider"`
	SourceAmountBaseUnits    int64     `bun:"source_amount_base_units"`
	SourceAssetID            string    `bun:"source_asset_id"`
	DestinationAmountMinor   int64     `bun:"destination_amount_minor"`
	DestinationCurrency      string    `bun:"destination_currency"`
	ProviderFeeMinor         int64     `bun:"provider_fee_minor"`
	NetworkFeeMinor          int64     `bun:"network_fee_minor"`
	ExchangeRate             string    `bun:"exchange_rate"`
	EstimatedDeliverySeconds int       `bun:"estimated_delivery_seconds"`
	RequiresBridge           bool      `bun:"requires_bridge"`
	RequiresConversion       bool      `bun:"requires_conversion"`
	RequiresPrefunding       bool      `bun:"requires_prefunding"`
	Status                   string    `bun:"status"`
	DeliverBaseUnits         int64     `bun:"deliver_base_units"`
	FeeBaseUnits             int64     `bun:"fee_base_units"`
	QuoteExpiresAt           time.Time `bun:"quote_expires_at"`
	CreatedAt                time.Time `bun:"created_at"`
}

func (m quoteModel) domain() offramp.Quote {
	return offramp.Quote{ID: m.ID, PaymentID: m.PaymentID, SetVersion: m.SetVersion, DestinationID: m.DestinationID,
		DestinationType: recipient.DestinationType(m.DestinationType), Provider: m.Provider,
		SourceAmountBaseUnits: m.SourceAmountBaseUnits, SourceAssetID: m.SourceAssetID,
		DestinationAmountMinor: m.DestinationAmountMinor, DestinationCurrency: m.DestinationCurrency,
		ProviderFeeMinor: m.ProviderFeeMinor, NetworkFeeMinor: m.NetworkFeeMinor, ExchangeRate: m.ExchangeRate,
		EstimatedDeliverySeconds: m.EstimatedDeliverySeconds, RequiresBridge: m.RequiresBridge,
		RequiresConversion: m.RequiresConversion, RequiresPrefunding: m.RequiresPrefunding,
		Status: offramp.QuoteStatus(m.Status), ExpiresAt: m.QuoteExpiresAt.UTC(), CreatedAt: m.CreatedAt.UTC(),
		DeliverBaseUnits: m.DeliverBaseUnits, FeeBaseUnits: m.FeeBaseUnits}
}

type offrampRepo struct{ db bun.IDB }

var _ ports.OfframpRepo = offrampRepo{}

var (
	errOfframpNotFound = core.NotFound(offramp.CodePaymentNotFound, "off-ramp payment")
	errQuoteNotFound   = core.NotFound(offramp.CodeQuoteNotFound, "route quote")
)

// CreatePayment inserts the payment with its id's lookup row, in the payment's unit of work:
// jobs, sweeps and the recipient's reads find the sender's tenant (the payment's shard) by it.
func (r offrampRepo) CreatePayment(ctx context.Context, p offramp.Payment) error {
	m := offrampFromDomain(p)
	if _, err := r.db.NewInsert().Model(&m).Exec(ctx); err != nil {
		return err
	}
	if err := addLookup(ctx, rawQuerier(r.db), p.ID, lookupOfframpPayment, p.SenderTenantID); err != nil {
		return err
	}
	return r.addProviderRefLookup(ctx, p)
}

// addProviderRefLookup records which tenant a provider's reference belongs to once the payment
// has one, in the unit that sets it: a provider's webhook finds the payment by it. The lookup
// row also keeps a reference one payment's across tenants (its one-tenant index), as the
// payments' own unique index did before it was per tenant.
func (r offrampRepo) addProviderRefLookup(ctx context.Context, p offramp.Payment) error {
	if p.Provider == "" || p.ProviderReference == "" {
		return nil
	}
	err := addLookupOnce(ctx, rawQuerier(r.db), providerRefKey(p.Provider, p.ProviderReference), lookupOfframpProviderRef, p.SenderTenantID)
	if code, constraint := constraintOf(err); code == "23505" && constraint == "tenant_lookups_one_tenant" {
		return fmt.Errorf("postgres: provider %s reference %s already names another tenant's payment", p.Provider, p.ProviderReference)
	}
	return err
}

func providerRefKey(provider, reference string) string { return provider + ":" + reference }

func (r offrampRepo) one(ctx context.Context, q *bun.SelectQuery) (offramp.Payment, error) {
	var m offrampPaymentModel
	err := q.Model(&m).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return offramp.Payment{}, errOfframpNotFound
	}
	if err != nil {
		return offramp.Payment{}, err
	}
	return m.domain()
}

// senderOf is the sender's tenant of a payment, from its id's lookup row (one shard).
func (r offrampRepo) senderOf(ctx context.Context, id string) (string, error) {
	tenantID, ok, err := lookupTenant(ctx, rawQuerier(r.db), id, lookupOfframpPayment)
	if err == nil && !ok {
		err = errOfframpNotFound
	}
	return tenantID, err
}

// FindPayment serves the sender and the recipient alike: the id's lookup row names the
// sender's tenant, where the payment lives, and the row is then read there.
func (r offrampRepo) FindPayment(ctx context.Context, env core.Environment, tenantID, id string) (offramp.Payment, error) {
	sender, err := r.senderOf(ctx, id)
	if err != nil {
		return offramp.Payment{}, err
	}
	return r.one(ctx, r.db.NewSelect().Where("sender_tenant_id = ? AND environment = ? AND id = ? AND (sender_tenant_id = ? OR recipient_tenant_id = ?)",
		sender, env, id, tenantID, tenantID))
}

// LockPayment runs where only the id is known (jobs, sweeps, claims): its lookup row first.
func (r offrampRepo) LockPayment(ctx context.Context, id string) (offramp.Payment, error) {
	sender, err := r.senderOf(ctx, id)
	if err != nil {
		return offramp.Payment{}, err
	}
	return r.one(ctx, r.db.NewSelect().Where("sender_tenant_id = ? AND id = ?", sender, id).For("UPDATE"))
}

func (r offrampRepo) LockPaymentByProviderReference(ctx context.Context, provider, reference string) (offramp.Payment, error) {
	sender, ok, err := lookupTenant(ctx, rawQuerier(r.db), providerRefKey(provider, reference), lookupOfframpProviderRef)
	if err != nil {
		return offramp.Payment{}, err
	}
	if !ok {
		return offramp.Payment{}, errOfframpNotFound
	}
	return r.one(ctx, r.db.NewSelect().Where("sender_tenant_id = ? AND provider = ? AND provider_reference = ?", sender, provider, reference).For("UPDATE"))
}

func (r offrampRepo) UpdatePayment(ctx context.Context, p offramp.Payment) error {
	m := offrampFromDomain(p)
	if _, err := r.db.NewUpdate().Model(&m).WherePK().Exec(ctx); err != nil {
		return err
	}
	return r.addProviderRefLookup(ctx, p)
}

func (r offrampRepo) ListPayments(ctx context.Context, f ports.OfframpFilter, page ports.Page) ([]offramp.Payment, int, error) {
	var rows []offrampPaymentModel
	total, err := r.db.NewSelect().Model(&rows).
		Where("environment = ? AND (sender_tenant_id = ? OR recipient_tenant_id = ?)", f.Environment, f.TenantID, f.TenantID).
		OrderExpr("id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows(rows)
	return out, int(total), err
}

func (r offrampRepo) HeldPaymentIDs(ctx context.Context, env core.Environment, recipientTenantID string, limit int) ([]string, error) {
	var ids []string
	err := r.db.NewSelect().Model((*offrampPaymentModel)(nil)).Column("id").
		Where("environment = ? AND recipient_tenant_id = ? AND status IN (?)", env, recipientTenantID,
			bun.List([]string{string(offramp.StatusPayoutSelectionRequired), string(offramp.StatusComplianceHold)})).
		OrderExpr("id").Limit(int64(limit)).Scan(ctx, &ids)
	return ids, err
}

func (r offrampRepo) ExpiredQuotePaymentIDs(ctx context.Context, now time.Time, limit int) ([]string, error) {
	var ids []string
	err := r.db.NewSelect().TableExpr("offramp_payments AS p").Column("p.id").
		Where("p.status = ?", offramp.StatusAwaitingRecipientConfirmation).
		Where("EXISTS (SELECT 1 FROM route_quotes q WHERE q.tenant_id = p.sender_tenant_id AND q.payment_id = p.id AND q.status = 'ACTIVE' AND q.quote_expires_at <= ?)", now).
		OrderExpr("p.id").Limit(int64(limit)).Scan(ctx, &ids)
	return ids, err
}

func (r offrampRepo) RecheckDueHeldPaymentIDs(ctx context.Context, now time.Time, reasons []offramp.HoldReason, limit int) ([]string, error) {
	rs := make([]string, len(reasons))
	for i, h := range reasons {
		rs[i] = string(h)
	}
	var ids []string
	err := r.db.NewSelect().TableExpr("offramp_payments AS p").Column("p.id").
		Join("LEFT JOIN offramp_hold_rechecks AS h ON h.tenant_id = p.sender_tenant_id AND h.payment_id = p.id").
		Where("p.status IN (?)", bun.List([]string{string(offramp.StatusPayoutSelectionRequired), string(offramp.StatusComplianceHold)})).
		Where("p.hold_reasons && ?::text[]", pgdialect.Array(rs)).
		Where("h.next_at IS NULL OR h.next_at <= ?", now).
		OrderExpr("h.next_at NULLS FIRST, p.id").Limit(int64(limit)).Scan(ctx, &ids)
	return ids, err
}

// BackOffHoldRecheck reads the attempts so far and writes the next time computed here: Citus
// accepts only immutable functions in an upsert's SET, and time arithmetic is not. The caller
// holds the payment's lock, so two backoffs of one payment do not interleave.
func (r offrampRepo) BackOffHoldRecheck(ctx context.Context, tenantID, paymentID string, now time.Time, first, max time.Duration) error {
	q := rawQuerier(r.db)
	var attempts int
	err := q.QueryRowContext(ctx, `SELECT attempts FROM offramp_hold_rechecks WHERE tenant_id = $1 AND payment_id = $2 FOR UPDATE`,
		tenantID, paymentID).Scan(&attempts)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	secs := first.Seconds()
	if attempts > 0 {
		secs = math.Min(secs*math.Pow(2, float64(min(attempts, 30))), max.Seconds())
	}
	next := now.Add(time.Duration(secs * float64(time.Second)))
	_, err = q.ExecContext(ctx, `INSERT INTO offramp_hold_rechecks (tenant_id, payment_id, attempts, next_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (tenant_id, payment_id) DO UPDATE SET attempts = EXCLUDED.attempts, next_at = EXCLUDED.next_at`,
		tenantID, paymentID, attempts+1, next)
	return err
}

func (r offrampRepo) ClearHoldRecheck(ctx context.Context, tenantID, paymentID string) error {
	_, err := r.db.NewRaw("DELETE FROM offramp_hold_rechecks WHERE tenant_id = ? AND payment_id = ?", tenantID, paymentID).Exec(ctx)
	return err
}

func (r offrampRepo) ResetHoldRechecks(ctx context.Context, reason offramp.HoldReason) error {
	_, err := r.db.NewRaw(`DELETE FROM offramp_hold_rechecks h USING offramp_payments p
		WHERE h.tenant_id = p.sender_tenant_id AND h.payment_id = p.id AND ? = ANY(p.hold_reasons)`, string(reason)).Exec(ctx)
	return err
}

func (r offrampRepo) TopUpLiquidity(ctx context.Context, env core.Environment, provider, reference string, amountBaseUnits int64, operator string, now time.Time) (bool, error) {
	res, err := r.db.NewRaw(`INSERT INTO payout_liquidity_top_ups (environment, provider, reference, amount_base_units, operator, created_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, string(env), provider, reference, amountBaseUnits, operator, now).Exec(ctx)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (r offrampRepo) LiquidityTopUps(ctx context.Context, env core.Environment, provider string) (int64, error) {
	var sum int64
	err := r.db.NewRaw(`SELECT LEAST(COALESCE(SUM(amount_base_units), 0), 9223372036854775807)::bigint FROM payout_liquidity_top_ups
		WHERE environment = ? AND provider = ?`, string(env), provider).Scan(ctx, &sum)
	return sum, err
}

func (r offrampRepo) SenderSpend(ctx context.Context, env core.Environment, senderTenantID, excludePaymentID string, w policy.Windows) (policy.Spend, error) {
	// SUM over bigint is numeric: cap it at the int64 maximum so a huge sum fails the cap
	// instead of failing the scan.
	const capped = "LEAST(COALESCE(SUM(source_amount_base_units) FILTER (WHERE created_at >= ? AND created_at < ?), 0), 9223372036854775807)::bigint"
	span := w.Span()
	var s policy.Spend
	err := r.db.NewSelect().Model((*offrampPaymentModel)(nil)).
		ColumnExpr(capped, w.Daily.Start, w.Daily.End).
		ColumnExpr(capped, w.Weekly.Start, w.Weekly.End).
		ColumnExpr(capped, w.Monthly.Start, w.Monthly.End).
		Where("environment = ? AND sender_tenant_id = ? AND id <> ?", env, senderTenantID, excludePaymentID).
		Where("status NOT IN (?)", bun.List([]string{string(offramp.StatusCanceled), string(offramp.StatusRefunded)})).
		Where("created_at >= ? AND created_at < ?", span.Start, span.End).
		Scan(ctx, &s.Daily, &s.Weekly, &s.Monthly)
	return s, err
}

func (r offrampRepo) InsertQuotes(ctx context.Context, tenantID string, qs []offramp.Quote) error {
	if len(qs) == 0 {
		return nil
	}
	rows := make([]quoteModel, len(qs))
	for i, q := range qs {
		rows[i] = quoteModel{TenantID: tenantID, ID: q.ID, PaymentID: q.PaymentID, SetVersion: q.SetVersion, Position: i,
			DestinationID: q.DestinationID, DestinationType: string(q.DestinationType), Provider: q.Provider,
			SourceAmountBaseUnits: q.SourceAmountBaseUnits, SourceAssetID: q.SourceAssetID,
			DestinationAmountMinor: q.DestinationAmountMinor, DestinationCurrency: q.DestinationCurrency,
			ProviderFeeMinor: q.ProviderFeeMinor, NetworkFeeMinor: q.NetworkFeeMinor, ExchangeRate: q.ExchangeRate,
			EstimatedDeliverySeconds: q.EstimatedDeliverySeconds, RequiresBridge: q.RequiresBridge,
			RequiresConversion: q.RequiresConversion, RequiresPrefunding: q.RequiresPrefunding, Status: string(q.Status),
			DeliverBaseUnits: q.DeliverBaseUnits, FeeBaseUnits: q.FeeBaseUnits, QuoteExpiresAt: q.ExpiresAt, CreatedAt: q.CreatedAt}
	}
	_, err := r.db.NewInsert().Model(&rows).Exec(ctx)
	return err
}

func (r offrampRepo) SupersedeQuotes(ctx context.Context, tenantID, paymentID string, status offramp.QuoteStatus) error {
	_, err := r.db.NewUpdate().Model((*quoteModel)(nil)).Set("status = ?", status).
		Where("tenant_id = ? AND payment_id = ? AND status = 'ACTIVE'", tenantID, paymentID).Exec(ctx)
	return err
}

func (r offrampRepo) ActiveQuotes(ctx context.Context, tenantID, paymentID string) ([]offramp.Quote, error) {
	var rows []quoteModel
	err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND payment_id = ? AND status = 'ACTIVE'", tenantID, paymentID).
		OrderExpr("set_version, position").Limit(ports.MaxTake).Scan(ctx)
	return infallibleRows(rows), err
}

func (r offrampRepo) FindQuote(ctx context.Context, tenantID, paymentID, quoteID string) (offramp.Quote, error) {
	var m quoteModel
	err := r.db.NewSelect().Model(&m).Where("tenant_id = ? AND payment_id = ? AND id = ?", tenantID, paymentID, quoteID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return offramp.Quote{}, errQuoteNotFound
	}
	if err != nil {
		return offramp.Quote{}, err
	}
	return m.domain(), nil
}

func (r offrampRepo) RecordReturn(ctx context.Context, tenantID, paymentID, transferID string, amount int64, at time.Time) (bool, error) {
	res, err := r.db.NewRaw("INSERT INTO offramp_returns (tenant_id, payment_id, transfer_id, amount_base_units, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
		tenantID, paymentID, transferID, amount, at).Exec(ctx)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (r offrampRepo) RecordProviderEvent(ctx context.Context, provider, eventID string, at time.Time) (bool, error) {
	res, err := r.db.NewRaw("INSERT INTO provider_events (provider, event_id, received_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
		provider, eventID, at).Exec(ctx)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ApproveReview adds the reasons to the stored ones without a subquery (Citus refuses one in
// an INSERT): a reason approved twice may be stored twice, and ApprovedReviewReasons reads
// them distinct.
func (r offrampRepo) ApproveReview(ctx context.Context, tenantID, paymentID, operator string, reasons []offramp.HoldReason, at time.Time) error {
	rs := make([]string, len(reasons))
	for i, x := range reasons {
		rs[i] = string(x)
	}
	_, err := r.db.NewRaw(`INSERT INTO offramp_review_approvals (tenant_id, payment_id, operator, reasons, approved_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (tenant_id, payment_id) DO UPDATE SET
    reasons = CASE WHEN EXCLUDED.reasons <@ offramp_review_approvals.reasons THEN offramp_review_approvals.reasons
        ELSE offramp_review_approvals.reasons || EXCLUDED.reasons END,
    updated_at = EXCLUDED.updated_at`, tenantID, paymentID, operator, pgdialect.Array(rs), at, at).Exec(ctx)
	return err
}

func (r offrampRepo) ApprovedReviewReasons(ctx context.Context, tenantID, paymentID string) ([]offramp.HoldReason, error) {
	var rs []string
	err := r.db.NewRaw("SELECT DISTINCT unnest(reasons) FROM offramp_review_approvals WHERE tenant_id = ? AND payment_id = ? ORDER BY 1", tenantID, paymentID).Scan(ctx, &rs)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	out := make([]offramp.HoldReason, len(rs))
	for i, x := range rs {
		out[i] = offramp.HoldReason(x)
	}
	return out, nil
}
