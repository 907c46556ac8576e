package postgres

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/webhook"
	"github.com/corridorhq/corridor/ports"
)

// maxErrorChars bounds a failed job's error on the operator's page.
const maxErrorChars = 300

// OperatorReports reads the operator console's lists straight from the tables, across tenants,
// through the indexes the metrics use (the status index, River's state-led index).
type OperatorReports struct{ db *bun.DB }

var (
	_ ports.OperatorReports = (*OperatorReports)(nil)
	_ ports.OperatorAudit   = (*OperatorReports)(nil)
)

// NewOperatorReports reads from db.
func NewOperatorReports(db *bun.DB) *OperatorReports { return &OperatorReports{db: db} }

// PaymentsAwaitingOperator implements ports.OperatorReports.
func (r *OperatorReports) PaymentsAwaitingOperator(ctx context.Context, limit int) ([]ports.OperatorPayment, error) {
	var out []ports.OperatorPayment
	err := r.each(ctx, func(rows *sql.Rows) error {
		var p ports.OperatorPayment
		var env, holds string
		if err := rows.Scan(&p.ID, &p.TenantID, &env, &p.Status, &holds, &p.Provider, &p.UpdatedAt); err != nil {
			return err
		}
		p.Environment = core.Environment(env)
		if holds != "" {
			p.HoldReasons = strings.Split(holds, ",")
		}
		out = append(out, p)
		return nil
	}, `SELECT id, sender_tenant_id, environment, status, array_to_string(hold_reasons, ','), COALESCE(provider, ''), updated_at
		FROM offramp_payments WHERE status IN ('ACTION_REQUIRED', 'COMPLIANCE_HOLD') ORDER BY updated_at LIMIT $1`, limit)
	return out, err
}

// FailedJobs implements ports.OperatorReports.
func (r *OperatorReports) FailedJobs(ctx context.Context, limit int) ([]ports.FailedJob, error) {
	var out []ports.FailedJob
	err := r.each(ctx, func(rows *sql.Rows) error {
		var j ports.FailedJob
		if err := rows.Scan(&j.ID, &j.Kind, &j.State, &j.Args, &j.Attempt, &j.MaxAttempts, &j.LastError, &j.At); err != nil {
			return err
		}
		out = append(out, j)
		return nil
	}, `SELECT id, kind, state::text, left(args::text, 200), attempt, max_attempts,
		left(COALESCE(errors[array_length(errors, 1)]->>'error', ''), $2), COALESCE(finalized_at, attempted_at, scheduled_at)
		FROM river_job WHERE state IN ('retryable', 'discarded') ORDER BY id DESC LIMIT $1`, limit, maxErrorChars)
	return out, err
}

// StuckRelayerTransactions implements ports.OperatorReports, through the unsettled index.
func (r *OperatorReports) StuckRelayerTransactions(ctx context.Context, olderThan time.Duration, limit int) ([]ports.StuckRelayerTransaction, error) {
	var out []ports.StuckRelayerTransaction
	err := r.each(ctx, func(rows *sql.Rows) error {
		var s ports.StuckRelayerTransaction
		if err := rows.Scan(&s.ChainID, &s.Address, &s.Nonce, &s.FirstSentAt, &s.Sends, &s.LatestTxHash); err != nil {
			return err
		}
		out = append(out, s)
		return nil
	}, `SELECT chain_id, address, nonce, min(sent_at), count(*), (array_agg(tx_hash ORDER BY sent_at DESC))[1]
		FROM relayer_transactions WHERE settled_at IS NULL GROUP BY chain_id, address, nonce
		HAVING min(sent_at) < now() - make_interval(secs => $1) ORDER BY min(sent_at) LIMIT $2`, olderThan.Seconds(), limit)
	return out, err
}

// disabledEndpointsSQL reads the endpoints the service disabled (and nobody deleted); the
// caller adds its condition and order.
const disabledEndpointsSQL = `SELECT id, tenant_id, environment, url, disabled_reason, failing_since, updated_at
		FROM webhook_endpoints WHERE NOT enabled AND disabled_reason <> '' AND deleted_at IS NULL `

// DisabledEndpoints implements ports.OperatorReports.
func (r *OperatorReports) DisabledEndpoints(ctx context.Context, limit int) ([]ports.DisabledEndpoint, error) {
	return r.disabledEndpoints(ctx, disabledEndpointsSQL+`ORDER BY updated_at DESC LIMIT $1`, limit)
}

func (r *OperatorReports) disabledEndpoints(ctx context.Context, query string, args ...any) ([]ports.DisabledEndpoint, error) {
	var out []ports.DisabledEndpoint
	err := r.each(ctx, func(rows *sql.Rows) error {
		e, err := scanDisabledEndpoint(rows)
		out = append(out, e)
		return err
	}, query, args...)
	return out, err
}

// each runs a read-only query and hands every row to scan.
func (r *OperatorReports) each(ctx context.Context, scan func(*sql.Rows) error, query string, args ...any) error {
	rows, err := r.db.DB.QueryContext(ctx, query, args...)
	if err != nil {
		return unavailable(err)
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// FindDisabledEndpoint implements ports.OperatorReports.
func (r *OperatorReports) FindDisabledEndpoint(ctx context.Context, id string) (ports.DisabledEndpoint, error) {
	out, err := r.disabledEndpoints(ctx, disabledEndpointsSQL+`AND id = $1`, id)
	if err != nil {
		return ports.DisabledEndpoint{}, err
	}
	if len(out) == 0 {
		return ports.DisabledEndpoint{}, core.E(webhook.CodeEndpointNotFound, "no disabled webhook endpoint %s", id)
	}
	return out[0], nil
}

// InvoicesAwaitingArbiter implements ports.OperatorReports, through the invoices' poll index.
func (r *OperatorReports) InvoicesAwaitingArbiter(ctx context.Context, arbiter string, limit int) ([]ports.ArbiterInvoice, error) {
	var out []ports.ArbiterInvoice
	err := r.each(ctx, func(rows *sql.Rows) error {
		var i ports.ArbiterInvoice
		var env string
		if err := rows.Scan(&i.ID, &i.TenantID, &env, &i.Status, &i.Settlement, &i.PaymentID, &i.PaymentStatus, &i.Amount, &i.UpdatedAt); err != nil {
			return err
		}
		i.Environment = core.Environment(env)
		out = append(out, i)
		return nil
	}, `SELECT i.id, i.tenant_id, i.environment, i.status,
			CASE WHEN i.release_payment_id IS NOT NULL THEN 'release' ELSE 'refund' END,
			p.id, p.status, i.amount_base_units, i.updated_at
		FROM invoices i
		JOIN safe_payments p ON p.id = COALESCE(i.release_payment_id, i.refund_payment_id) AND p.tenant_id = i.tenant_id
		WHERE (i.release_payment_id IS NOT NULL OR i.refund_payment_id IS NOT NULL)
			AND i.status NOT IN ('RELEASED', 'REFUNDED', 'CANCELLED', 'EXPIRED')
			AND lower(i.arbiter_address) = lower($1)
			AND p.status IN ('AWAITING_SIGNATURE', 'SIGNING')
		ORDER BY i.updated_at LIMIT $2`, arbiter, limit)
	return out, err
}

// RecentOperatorActions implements ports.OperatorReports.
func (r *OperatorReports) RecentOperatorActions(ctx context.Context, limit int) ([]ports.OperatorAction, error) {
	var out []ports.OperatorAction
	err := r.each(ctx, func(rows *sql.Rows) error {
		var a ports.OperatorAction
		var env string
		if err := rows.Scan(&a.ID, &a.At, &a.Operator, &a.Action, &a.ObjectID, &a.TenantID, &env, &a.Outcome, &a.Detail, &a.Via); err != nil {
			return err
		}
		a.Environment = core.Environment(env)
		out = append(out, a)
		return nil
	}, `SELECT id, at, operator, action, object_id, COALESCE(tenant_id, ''), COALESCE(environment, ''), outcome, detail, via
		FROM operator_actions ORDER BY at DESC, id DESC LIMIT $1`, limit)
	return out, err
}

// RecordOperatorAction implements ports.OperatorAudit.
func (r *OperatorReports) RecordOperatorAction(ctx context.Context, a ports.OperatorAction) error {
	_, err := r.db.DB.ExecContext(ctx, `INSERT INTO operator_actions (at, operator, action, object_id, tenant_id, environment, outcome, detail, via)
		VALUES ($1, $2, $3, $4, NULLIF($5, ''), NULLIF($6, ''), $7, $8, $9)`,
		a.At, a.Operator, a.Action, a.ObjectID, a.TenantID, string(a.Environment), a.Outcome, a.Detail, a.Via)
	return unavailable(err)
}

func scanDisabledEndpoint(rows *sql.Rows) (ports.DisabledEndpoint, error) {
	var e ports.DisabledEndpoint
	var env string
	var failing sql.NullTime
	if err := rows.Scan(&e.ID, &e.TenantID, &env, &e.URL, &e.Reason, &failing, &e.UpdatedAt); err != nil {
		return e, err
	}
	e.Environment = core.Environment(env)
	if failing.Valid {
		at := failing.Time.UTC()
		e.FailingSince = &at
	}
	return e, nil
}

// findTenantsSQL matches the tenants' primary key, the slug's unique index and the tenants
// whose members have the email ($3, read first); a tenant matched several ways is listed once,
// by its first way. Members are asked apart from tenants (it was written when Citus held
// tenants on the coordinator, and a join of a local and a distributed table is not one it
// plans). On Citus tenants is distributed by id too: the match by id reads one shard, the
// match by slug every shard, which is fine at an operator's pace.
const findTenantsSQL = `
WITH m AS (
    SELECT id AS tenant_id, 'id' AS matched_by, 1 AS rank FROM tenants WHERE id = $1
    UNION ALL SELECT id, 'slug', 2 FROM tenants WHERE slug = lower($1)
    UNION ALL SELECT id, 'email', 3 FROM tenants WHERE id = ANY($3)
), best AS (
    SELECT DISTINCT ON (tenant_id) tenant_id, matched_by FROM m ORDER BY tenant_id, rank
)
SELECT t.id, t.slug, t.name, t.created_at, b.matched_by
FROM best b JOIN tenants t ON t.id = b.tenant_id ORDER BY t.created_at, t.id LIMIT $2`

// FindTenants implements ports.OperatorReports. Its members statements ask every shard on
// Citus, which is fine at an operator's pace.
func (r *OperatorReports) FindTenants(ctx context.Context, q string, limit int) ([]ports.TenantMatch, error) {
	var byEmail []string
	err := r.each(ctx, func(rows *sql.Rows) error {
		var id string
		err := rows.Scan(&id)
		byEmail = append(byEmail, id)
		return err
	}, `SELECT DISTINCT tenant_id FROM members WHERE lower(email) = lower($1) AND status <> 'REVOKED'`, q)
	if err != nil {
		return nil, err
	}
	var out []ports.TenantMatch
	ids := []string{}
	err = r.each(ctx, func(rows *sql.Rows) error {
		var m ports.TenantMatch
		if err := rows.Scan(&m.ID, &m.Slug, &m.Name, &m.CreatedAt, &m.MatchedBy); err != nil {
			return err
		}
		out, ids = append(out, m), append(ids, m.ID)
		return nil
	}, findTenantsSQL, q, limit, byEmail)
	if err != nil || len(out) == 0 {
		return out, err
	}
	counts := map[string]int{}
	err = r.each(ctx, func(rows *sql.Rows) error {
		var id string
		var n int
		err := rows.Scan(&id, &n)
		counts[id] = n
		return err
	}, `SELECT tenant_id, count(*) FROM members WHERE tenant_id = ANY($1) AND status <> 'REVOKED' GROUP BY tenant_id`, ids)
	for i := range out {
		out[i].Members = counts[out[i].ID]
	}
	return out, err
}
