package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/timestamp"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

type cardholderModel struct {
	bun.BaseModel `bun:"table:cardholders"`
	ID            string    `bun:"id,pk"`
	TenantID      string    `bun:"tenant_id,pk"`
	Environment   string    `bun:"environment"`
	Name          string    `bun:"name"`
	Email         string    `bun:"email"`
	CreatedAt     time.Time `bun:"created_at"`
}

func (m cardholderModel) domain() (card.Cardholder, error) {
	return card.Cardholder{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment),
		Name: m.Name, Email: m.Email, CreatedAt: m.CreatedAt.UTC()}, nil
}

type cardModel struct {
	bun.BaseModel        `bun:"table:cards"`
	ID                   string          `bun:"id,pk"`
	TenantID             string          `bun:"tenant_id,pk"`
	Environment          string          `bun:"environment"`
	Funding              string          `bun:"funding"`
	WalletID             *string         `bun:"wallet_id"`
	SafeAddress          *string         `bun:"safe_address"`
	CardholderID         *string         `bun:"cardholder_id"`
	AgentID              *string         `bun:"agent_id"`
	Issuer               string          `bun:"issuer"`
	IssuerCardID         string          `bun:"issuer_card_id"`
	Last4                string          `bun:"last4"`
	FundingAccountID     *string         `bun:"funding_account_id"`
	Chain                *string         `bun:"chain"`
	CryptoAccountAddress *string         `bun:"crypto_account_address"`
	CryptoAccountType    *string         `bun:"crypto_account_type"`
	Status               string          `bun:"status"`
	PerTransactionLimit  *int64          `bun:"per_transaction_limit"`
	DailyLimit           *int64          `bun:"daily_limit"`
	WeeklyLimit          *int64          `bun:"weekly_limit"`
	MonthlyLimit         *int64          `bun:"monthly_limit"`
	BlockedMCC           json.RawMessage `bun:"blocked_mcc,type:jsonb"`
	AllowedMCC           json.RawMessage `bun:"allowed_mcc,type:jsonb,nullzero"`
	CreatedAt            time.Time       `bun:"created_at"`
	UpdatedAt            time.Time       `bun:"updated_at"`
}

func cardFromDomain(c card.Card) (cardModel, error) {
	blocked := c.Limits.BlockedMCC
	if blocked == nil {
		blocked = []string{}
	}
	rawBlocked, err := json.Marshal(blocked)
	if err != nil {
		return cardModel{}, err
	}
	var allowed json.RawMessage
	if c.Limits.AllowedMCC != nil {
		if allowed, err = json.Marshal(c.Limits.AllowedMCC); err != nil {
			return cardModel{}, err
		}
	}
	return cardModel{
		ID: c.ID, TenantID: c.TenantID, Environment: string(c.Environment), Funding: string(c.Funding),
		WalletID: nullable(c.WalletID), SafeAddress: nullable(c.SafeAddress), CardholderID: nullable(c.CardholderID),
		AgentID: nullable(c.AgentID), Issuer: c.Issuer, IssuerCardID: c.IssuerCardID, Last4: c.Last4,
		FundingAccountID: nullable(c.FundingAccountID), Chain: nullable(c.Chain),
		CryptoAccountAddress: nullable(c.CryptoAccountAddress), CryptoAccountType: nullable(c.CryptoAccountType),
		Status: string(c.Status), PerTransactionLimit: c.Limits.PerTransaction, DailyLimit: c.Limits.Daily,
		WeeklyLimit: c.Limits.Weekly, MonthlyLimit: c.Limits.Monthly, BlockedMCC: rawBlocked, AllowedMCC: allowed,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}, nil
}

func (m cardModel) domain() (card.Card, error) {
	c := card.Card{
		ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), Funding: card.Funding(m.Funding),
		WalletID: deref(m.WalletID), SafeAddress: deref(m.SafeAddress), CardholderID: deref(m.CardholderID),
		AgentID: deref(m.AgentID), Issuer: m.Issuer, IssuerCardID: m.IssuerCardID, Last4: m.Last4,
		FundingAccountID: deref(m.FundingAccountID), Chain: deref(m.Chain),
		CryptoAccountAddress: deref(m.CryptoAccountAddress), CryptoAccountType: deref(m.CryptoAccountType),
		Status: card.Status(m.Status), CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
		Limits: card.Limits{PerTransaction: m.PerTransactionLimit, Daily: m.DailyLimit, Weekly: m.WeeklyLimit, Monthly: m.MonthlyLimit},
	}
	if err := json.Unmarshal(m.BlockedMCC, &c.Limits.BlockedMCC); err != nil {
		return card.Card{}, err
	}
	if c.Limits.BlockedMCC == nil {
		c.Limits.BlockedMCC = []string{}
	}
	if len(m.AllowedMCC) > 0 && string(m.AllowedMCC) != "null" {
		c.Limits.AllowedMCC = []string{}
		if err := json.Unmarshal(m.AllowedMCC, &c.Limits.AllowedMCC); err != nil {
			return card.Card{}, err
		}
		if c.Limits.AllowedMCC == nil {
			c.Limits.AllowedMCC = []string{}
		}
	}
	return c, nil
}

type cardAuthorizationModel struct {
	bun.BaseModel     `bun:"table:card_authorizations"`
	ID                string    `bun:"id,pk"`
	TenantID          string    `bun:"tenant_id,pk"`
	Environment       string    `bun:"environment"`
	CardID            string    `bun:"card_id"`
	AmountBaseUnits   int64     `bun:"amount_base_units"`
	CapturedBaseUnits int64     `bun:"captured_base_units"`
	MCC               string    `bun:"mcc"`
	MerchantName      string    `bun:"merchant_name"`
	Counterparty      *string   `bun:"counterparty"`
	Status            string    `bun:"status"`
	DeclineReason     *string   `bun:"decline_reason"`
	ReversalReason    *string   `bun:"reversal_reason"`
	DayKey            string    `bun:"day_key"`
	WeekKey           string    `bun:"week_key"`
	MonthKey          string    `bun:"month_key"`
	HoldTransferID    *string   `bun:"hold_transfer_id"`
	PolicyID          *string   `bun:"policy_id"`
	PolicyDecisionID  *string   `bun:"policy_decision_id"`
	SettlementStatus  *string   `bun:"settlement_status"`
	SettlementTxHash  *string   `bun:"settlement_tx_hash"`
	SettlementError   *string   `bun:"settlement_error"`
	CreatedAt         time.Time `bun:"created_at"`
	UpdatedAt         time.Time `bun:"updated_at"`
}

func cardAuthorizationFromDomain(a card.Authorization) cardAuthorizationModel {
	return cardAuthorizationModel{
		ID: a.ID, TenantID: a.TenantID, Environment: string(a.Environment), CardID: a.CardID,
		AmountBaseUnits: a.Amount, CapturedBaseUnits: a.CapturedAmount, MCC: a.MCC, MerchantName: a.MerchantName,
		Counterparty: nullable(a.Counterparty), Status: string(a.Status), DeclineReason: nullable(a.DeclineReason),
		ReversalReason: nullable(a.ReversalReason),
		DayKey:         a.Windows.Day, WeekKey: a.Windows.Week, MonthKey: a.Windows.Month,
		HoldTransferID: nullable(a.HoldTransferID), PolicyID: nullable(a.PolicyID), PolicyDecisionID: nullable(a.PolicyDecisionID),
		SettlementStatus: nullable(string(a.SettlementStatus)), SettlementTxHash: nullable(a.SettlementTxHash),
		SettlementError: nullable(a.SettlementError), CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
	}
}

func (m cardAuthorizationModel) domain() (card.Authorization, error) {
	return card.Authorization{
		ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), CardID: m.CardID,
		Amount: m.AmountBaseUnits, CapturedAmount: m.CapturedBaseUnits, MCC: m.MCC, MerchantName: m.MerchantName,
		Counterparty: deref(m.Counterparty), Status: card.AuthStatus(m.Status), DeclineReason: deref(m.DeclineReason),
		ReversalReason: deref(m.ReversalReason),
		Windows:        card.Windows{Day: m.DayKey, Week: m.WeekKey, Month: m.MonthKey},
		HoldTransferID: deref(m.HoldTransferID), PolicyID: deref(m.PolicyID), PolicyDecisionID: deref(m.PolicyDecisionID),
		SettlementStatus: card.SettlementStatus(deref(m.SettlementStatus)), SettlementTxHash: deref(m.SettlementTxHash),
		SettlementError: deref(m.SettlementError), CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
	}, nil
}

// cardRepo's citus marks a Citus coordinator, where the card's row and the ledger's rows are
// not locked in one place (LockCardAfterHold); its unit is the unit's share of a pipeline
// batch (nil outside one), whose claim may have read a card's decision rows already
// (batch_claim_cards.go).
type cardRepo struct {
	db    bun.IDB
	citus bool
	unit  *unitLedger
}

var (
	errCardNotFound          = core.NotFound(card.CodeCardNotFound, "card")
	errCardholderNotFound    = core.NotFound(card.CodeCardholderNotFound, "cardholder")
	errAuthorizationNotFound = core.NotFound(card.CodeAuthorizationNotFound, "card authorization")
)

func (r cardRepo) CreateCardholder(ctx context.Context, h card.Cardholder) error {
	m := cardholderModel{ID: h.ID, TenantID: h.TenantID, Environment: string(h.Environment), Name: h.Name, Email: h.Email, CreatedAt: h.CreatedAt}
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r cardRepo) FindCardholder(ctx context.Context, tenantID string, env core.Environment, id string) (card.Cardholder, error) {
	return oneRow[card.Cardholder, cardholderModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id), errCardholderNotFound)
}

func (r cardRepo) ListCardholders(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]card.Cardholder, int, error) {
	var rows []cardholderModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", tenantID, env).
		OrderExpr("id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[card.Cardholder](rows)
	return out, int(total), err
}

func (r cardRepo) CreateCard(ctx context.Context, c card.Card) error {
	m, err := cardFromDomain(c)
	if err != nil {
		return err
	}
	_, err = r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r cardRepo) FindCard(ctx context.Context, tenantID string, env core.Environment, id string) (card.Card, error) {
	return oneRow[card.Card, cardModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id), errCardNotFound)
}

func (r cardRepo) LockCard(ctx context.Context, tenantID string, env core.Environment, id string) (card.Card, error) {
	return oneRow[card.Card, cardModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id).For("UPDATE"), errCardNotFound)
}

// lockHoldSQL locks the balance rows of accounts named by reference ($1 the environment, $2
// and $3 the assets and references), in account id order, as the ledger's own locking reads do.
const lockHoldSQL = `SELECT b.account_id FROM ledger_balances b
    JOIN ledger_accounts a ON a.id = b.account_id AND a.home_tenant_id = b.home_tenant_id
    WHERE a.environment = ? AND (a.asset, a.reference) IN (SELECT * FROM unnest(?::text[], ?::text[]))
    ORDER BY b.account_id FOR UPDATE OF b`

// LockCardAfterHold locks the hold's balance rows, then the card. On Citus the ledger's rows
// are locked by the posting that follows, after the card (docs/ledger.md).
func (r cardRepo) LockCardAfterHold(ctx context.Context, tenantID string, env core.Environment, id string, hold []ledger.AccountSpec) (card.Card, error) {
	if len(hold) > 0 && !r.citus {
		assets, refs := make([]string, len(hold)), make([]string, len(hold))
		for i, spec := range hold {
			assets[i], refs[i] = spec.Asset, spec.Reference
		}
		if _, err := r.db.NewRaw(lockHoldSQL, string(env), pgdialect.Array(assets), pgdialect.Array(refs)).Exec(ctx); err != nil {
			return card.Card{}, err
		}
	}
	return r.LockCard(ctx, tenantID, env, id)
}

// lockCardForDecisionSQL runs card_lock_for_decision (migrations 000061, 000080): the lock, then the
// windows and the attachment check in fresh snapshots. Its columns are plain values (the MCC
// lists as jsonb's text), so the query can carry the statements waiting on the connection (the
// use case's savepoint) in its own exchange, and its text never changes, so pgx prepares it
// once per connection: Bun's interpolation made every call a new text to parse and plan.
const lockCardForDecisionSQL = `SELECT ` + cardDecisionColumns + `
FROM card_lock_for_decision($1, $2, $3, $4, $5, $6) AS r`

// LockCardForDecision locks the card and reads what its decision needs beside it, in one round
// trip that also carries the savepoint the use case opened before it; inside a pipeline batch
// whose claim read the card for this decision already, it sends nothing.
func (r cardRepo) LockCardForDecision(ctx context.Context, tenantID string, env core.Environment, id string, w card.Windows) (ports.CardDecisionRows, error) {
	if d, ok := r.unit.takeCard(tenantID, env, id, w); ok {
		return d, nil
	}
	var cs cardScan
	err := rawQuerier(r.db).QueryRowContext(ctx, lockCardForDecisionSQL, withPending{}, tenantID, string(env), id, w.Day, w.Week, w.Month).
		Scan(cs.targets()...)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.CardDecisionRows{}, errCardNotFound
	}
	if err != nil {
		return ports.CardDecisionRows{}, err
	}
	return cs.rows()
}

func (r cardRepo) UpdateCard(ctx context.Context, c card.Card) error {
	r.unit.touchCard(cardTouchKey(c.TenantID, c.ID))
	m, err := cardFromDomain(c)
	if err != nil {
		return err
	}
	_, err = r.db.NewUpdate().Model(&m).WherePK().Exec(ctx)
	return err
}

func (r cardRepo) ListCards(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]card.Card, int, error) {
	var rows []cardModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", tenantID, env).
		OrderExpr("id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[card.Card](rows)
	return out, int(total), err
}

// windowSpendSQL reads a card's spend in the windows $3–$5 from its one spend row
// (card_spend, migration 000080): a period whose key is before the window's rolled over and
// spent nothing yet; a later one is the period an approval in these windows adds to.
const windowSpendSQL = `SELECT CASE WHEN day_key >= $3 THEN spent_daily ELSE 0 END,
    CASE WHEN week_key >= $4 THEN spent_weekly ELSE 0 END, CASE WHEN month_key >= $5 THEN spent_monthly ELSE 0 END
FROM card_spend WHERE tenant_id = $1 AND card_id = $2`

func (r cardRepo) WindowSpend(ctx context.Context, tenantID, cardID string, w card.Windows) (card.Spend, error) {
	var s card.Spend
	err := rawQuerier(r.db).QueryRowContext(ctx, windowSpendSQL, withPending{}, tenantID, cardID, w.Day, w.Week, w.Month).
		Scan(&s.Daily, &s.Weekly, &s.Monthly)
	if errors.Is(err, sql.ErrNoRows) {
		return card.Spend{}, nil
	}
	return s, err
}

// spendUpsert adds an amount to a card's spend row in the given windows, creating the row
// when the card has none; its VALUES row is the tenant's, card's, three keys' and amount's
// placeholders (typed: on Citus the statement is re-planned for the shard, and the insert routes
// to the tenant's shard). A period in a later window starts at the amount (it rolled over); in
// the row's window, or in an earlier one (windows taken just before a rollover another approval
// made), the amount adds to the row's window, whose key stays.
func spendUpsert(tenant, cardID, day, week, month, amount string) string {
	return `INSERT INTO card_spend AS s (tenant_id, card_id, day_key, spent_daily, week_key, spent_weekly, month_key, spent_monthly)
VALUES (` + tenant + `::text, ` + cardID + `::text, ` + day + `::text, ` + amount + `::bigint, ` + week + `::text, ` + amount + `::bigint, ` +
		month + `::text, ` + amount + `::bigint)
` + spendOnConflict
}

// spendOnConflict is spendUpsert's and writeApprovalsSQL's update of a card's existing spend row.
const spendOnConflict = `ON CONFLICT (tenant_id, card_id) DO UPDATE SET
    spent_daily = CASE WHEN EXCLUDED.day_key > s.day_key THEN EXCLUDED.spent_daily ELSE s.spent_daily + EXCLUDED.spent_daily END,
    day_key = greatest(s.day_key, EXCLUDED.day_key),
    spent_weekly = CASE WHEN EXCLUDED.week_key > s.week_key THEN EXCLUDED.spent_weekly ELSE s.spent_weekly + EXCLUDED.spent_weekly END,
    week_key = greatest(s.week_key, EXCLUDED.week_key),
    spent_monthly = CASE WHEN EXCLUDED.month_key > s.month_key THEN EXCLUDED.spent_monthly ELSE s.spent_monthly + EXCLUDED.spent_monthly END,
    month_key = greatest(s.month_key, EXCLUDED.month_key)`

// addWindowSpendSQL is AddWindowSpend's debit ($1 tenant, $2 card, $3–$5 the windows, $6 the
// amount).
var addWindowSpendSQL = spendUpsert("$1", "$2", "$3", "$4", "$5", "$6")

// giveBackWindowSpendSQL gives an amount back ($6, negative) to the periods of the card's spend
// row still in the windows that consumed it ($3–$5); a period that rolled over since is left
// as it is, so the current window never goes down for an earlier window's credit.
const giveBackWindowSpendSQL = `UPDATE card_spend SET
    spent_daily = spent_daily + CASE WHEN day_key = $3 THEN $6::bigint ELSE 0 END,
    spent_weekly = spent_weekly + CASE WHEN week_key = $4 THEN $6::bigint ELSE 0 END,
    spent_monthly = spent_monthly + CASE WHEN month_key = $5 THEN $6::bigint ELSE 0 END
WHERE tenant_id = $1 AND card_id = $2 AND (day_key = $3 OR week_key = $4 OR month_key = $5)`

func (r cardRepo) AddWindowSpend(ctx context.Context, tenantID, cardID string, w card.Windows, delta int64) error {
	r.unit.touchCard(cardTouchKey(tenantID, cardID))
	q := addWindowSpendSQL
	if delta < 0 {
		// A credit gives back what an approval added; the checks keep a period from going
		// below zero.
		q = giveBackWindowSpendSQL
	}
	_, err := rawQuerier(r.db).ExecContext(ctx, q, tenantID, cardID, w.Day, w.Week, w.Month, delta)
	return err
}

func (r cardRepo) CreateAuthorization(ctx context.Context, a card.Authorization) error {
	m := cardAuthorizationFromDomain(a)
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

// createSpendingAuthorizationSQL inserts an approval, its event and adds its amount to its
// three windows (its card's spend row) in one statement of one unchanging text: pgx prepares it
// once per connection and PostgreSQL plans it once. An approval's columns that are always the
// same (nothing captured, no decline or reversal reason, no settlement, updated when created)
// are constants of the text, so it sends 18 arguments: $1–$14 the approval's (id, tenant,
// environment, card, amount, mcc, merchant, counterparty, the day, week and month keys, hold,
// policy, policy decision), $15 its time, $16–$18 the event's id, type and data (its tenant,
// environment, resource and time are the approval's). The event's insert is recordEventQuery's.
var createSpendingAuthorizationSQL = `WITH created AS (
    INSERT INTO card_authorizations (id, tenant_id, environment, card_id, amount_base_units, captured_base_units,
        mcc, merchant_name, counterparty, status, decline_reason, reversal_reason, day_key, week_key, month_key,
        hold_transfer_id, policy_id, policy_decision_id, settlement_status, settlement_tx_hash, settlement_error,
        created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, 0, $6, $7, $8, 'APPROVED', NULL, NULL, $9, $10, $11, $12, $13, $14, NULL, NULL, NULL, $15, $15)
), announced AS (
    INSERT INTO events (id, tenant_id, environment, type, resource_id, data, created_at, dispatched_at)
    SELECT $16, $2, $3, $17, $1, $18::text::jsonb, $15, ` + fannedOutUnlessEndpoint + `
)
` + spendUpsert("$2", "$4", "$9", "$10", "$11", "$5")

// CreateSpendingAuthorization inserts the approval, adds its amount to its three windows and
// records its event in one statement (createSpendingAuthorizationSQL), saving the approval
// two round trips. a must be an approval as the decision makes it (nothing captured, no
// reason, no settlement, updated when created), and the event the approval's own (its tenant,
// environment, resource and time).
func (r cardRepo) CreateSpendingAuthorization(ctx context.Context, a card.Authorization, announce event.Event) error {
	if err := announce.Validate(); err != nil {
		return err
	}
	if announce.TenantID != a.TenantID || announce.Environment != a.Environment || announce.ResourceID != a.ID ||
		!announce.CreatedAt.Equal(a.CreatedAt) {
		return fmt.Errorf("event %s: not the approval %s's own", announce.ID, a.ID)
	}
	if a.Status != card.AuthApproved || a.CapturedAmount != 0 || a.DeclineReason != "" || a.ReversalReason != "" ||
		a.SettlementStatus != card.SettlementNone || a.SettlementTxHash != "" || a.SettlementError != "" || !a.UpdatedAt.Equal(a.CreatedAt) {
		return fmt.Errorf("authorization %s: not an approval as decided (%s)", a.ID, a.Status)
	}
	data, err := timestamp.Marshal(announce.Data)
	if err != nil {
		return fmt.Errorf("event %s: data: %w", announce.ID, err)
	}
	r.unit.touchCard(cardTouchKey(a.TenantID, a.CardID))
	h := heldApproval{id: a.ID, tenant: a.TenantID, env: string(a.Environment), cardID: a.CardID, amount: a.Amount,
		mcc: a.MCC, merchant: a.MerchantName, counterparty: nullable(a.Counterparty), day: a.Windows.Day,
		week: a.Windows.Week, month: a.Windows.Month, hold: nullable(a.HoldTransferID), policy: nullable(a.PolicyID),
		decision: nullable(a.PolicyDecisionID), at: a.CreatedAt, eventID: announce.ID, eventType: announce.Type, data: string(data)}
	if deferrable(ctx) && r.unit.holdApproval(h) {
		return nil // written by the batch with its ledger rows, before its COMMIT (batch_approvals.go)
	}
	args := make([]any, 0, 19)
	if deferrable(ctx) {
		// The caller's last write (ports.WithLastWrite): it waits on the connection and travels
		// with the next exchange or the COMMIT, whose failure it then is (driver.go).
		args = append(args, deferExec{})
	}
	args = append(args, h.id, h.tenant, h.env, h.cardID, h.amount, h.mcc, h.merchant, h.counterparty, h.day, h.week,
		h.month, h.hold, h.policy, h.decision, h.at, h.eventID, h.eventType, h.data)
	_, err = rawQuerier(r.db).ExecContext(ctx, createSpendingAuthorizationSQL, args...)
	return err
}

func (r cardRepo) FindAuthorization(ctx context.Context, tenantID string, env core.Environment, id string) (card.Authorization, error) {
	return oneRow[card.Authorization, cardAuthorizationModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id), errAuthorizationNotFound)
}

func (r cardRepo) LockAuthorizationByID(ctx context.Context, tenantID, id string) (card.Authorization, error) {
	return oneRow[card.Authorization, cardAuthorizationModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND id = ?", tenantID, id).For("UPDATE"), errAuthorizationNotFound)
}

func (r cardRepo) UpdateAuthorization(ctx context.Context, a card.Authorization) error {
	m := cardAuthorizationFromDomain(a)
	_, err := r.db.NewUpdate().Model(&m).WherePK().Exec(ctx)
	return err
}

func (r cardRepo) StaleSettlements(ctx context.Context, before time.Time, limit int) ([]ports.TenantRow, error) {
	var rows []struct {
		TenantID string `bun:"tenant_id"`
		ID       string `bun:"id"`
	}
	err := r.db.NewSelect().Table("card_authorizations").Column("tenant_id", "id").
		Where("settlement_status IN ('PENDING', 'SUBMITTED') AND updated_at < ?", before).
		OrderExpr("updated_at").Limit(int64(limit)).Scan(ctx, &rows)
	out := make([]ports.TenantRow, 0, len(rows))
	for _, row := range rows {
		out = append(out, ports.TenantRow{TenantID: row.TenantID, ID: row.ID})
	}
	return out, err
}

func (r cardRepo) OpenApprovals(ctx context.Context, createdBefore time.Time, limit int) ([]card.Authorization, error) {
	var rows []cardAuthorizationModel
	err := r.db.NewSelect().Model(&rows).Where("status = 'APPROVED' AND created_at < ?", createdBefore).
		OrderExpr("created_at").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, err
	}
	return domainRows[card.Authorization](rows)
}

func (r cardRepo) ListAuthorizations(ctx context.Context, tenantID, cardID string, page ports.Page) ([]card.Authorization, int, error) {
	var rows []cardAuthorizationModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND card_id = ?", tenantID, cardID).
		OrderExpr("id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[card.Authorization](rows)
	return out, int(total), err
}
