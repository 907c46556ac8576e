package postgres

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"corridor/core"
	"corridor/ports"
)

// maxErrorChars bounds a failed job's error on the operator's page.
const maxErrorChars = 300

// OperatorReports reads the operator console's lists straight from the tables, across tenants,
// through the indexes the metrics use (the status index, River's state-led index).
type OperatorReports struct{ db *bun.DB }

var _ ports.OperatorReports = (*OperatorReports)(nil)

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

// DisabledEndpoints implements ports.OperatorReports.
func (r *OperatorReports) DisabledEndpoints(ctx context.Context, limit int) ([]ports.DisabledEndpoint, error) {
	var out []ports.DisabledEndpoint
	err := r.each(ctx, func(rows *sql.Rows) error {
		var e ports.DisabledEndpoint
		var env string
		var failing sql.NullTime
		if err := rows.Scan(&e.ID, &e.TenantID, &env, &e.URL, &e.Reason, &failing, &e.UpdatedAt); err != nil {
			return err
		}
		e.Environment = core.Environment(env)
		if failing.Valid {
			at := failing.Time.UTC()
			e.FailingSince = &at
		}
		out = append(out, e)
		return nil
	}, `SELECT id, tenant_id, environment, url, disabled_reason, failing_since, updated_at
		FROM webhook_endpoints WHERE NOT enabled AND disabled_reason <> '' AND deleted_at IS NULL ORDER BY updated_at DESC LIMIT $1`, limit)
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
