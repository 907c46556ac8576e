package postgres

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

type idempotencyRepo struct {
	db   bun.IDB
	unit *unitLedger // the unit's share of a pipeline batch, nil outside one (claim_lock.go)
}

// TryLock uses a transaction-scoped advisory lock: it is released by commit or rollback, so a
// crashed request never leaves a key stuck "in progress".
func (r idempotencyRepo) TryLock(ctx context.Context, scope string, env core.Environment, key string) (bool, error) {
	var ok bool
	err := rawQuerier(r.db).QueryRowContext(ctx, "SELECT pg_try_advisory_xact_lock(hashtextextended($1, 2))",
		scope+"|"+string(env)+"|"+key).Scan(&ok)
	return ok, err
}

// querier is the database/sql handle under a Bun transaction or database: statements sent
// through it carry their arguments as server-side parameters, so the SQL text is the same on
// every call and pgx's statement cache keeps one prepared statement (and PostgreSQL one
// plan) for it, where Bun's interpolation makes every call a new text to parse and plan.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func rawQuerier(db bun.IDB) querier {
	switch d := db.(type) {
	case bun.Tx:
		return txQuerier{d.Tx} // inside a pipeline batch: the unit's savepoint, lock waits noted
	case *bun.DB:
		return d.DB
	case bun.Conn:
		return d.Conn
	}
	panic("postgres: unexpected bun.IDB")
}

const findIdempotencySQL = `SELECT fingerprint, status_code, body, content_type, created_at, expires_at
FROM idempotency_keys WHERE tenant_id = $1 AND scope = $2 AND environment = $3 AND key = $4 AND expires_at > $5`

// scopeTenant is the tenant column of a record's scope: the tenant of "tenant:{id}", or the
// scope itself for a session without a tenant. The records are distributed by it on Citus, so
// every statement on them names it and is routed to one shard (migration 000057 checks the
// column agrees with the scope).
func scopeTenant(scope string) string {
	if id, ok := strings.CutPrefix(scope, "tenant:"); ok {
		return id
	}
	return scope
}

func (r idempotencyRepo) Find(ctx context.Context, scope string, env core.Environment, key string, now time.Time) (ports.IdempotencyRecord, bool, error) {
	if rec, ok := recordInTurn(r.unit, scope, string(env), key, now); ok {
		return rec, true, nil // held for the batch's write (batch_records.go)
	}
	rec := ports.IdempotencyRecord{Scope: scope, Environment: env, Key: key}
	err := rawQuerier(r.db).QueryRowContext(ctx, findIdempotencySQL, scopeTenant(scope), scope, string(env), key, now).
		Scan(&rec.Fingerprint, &rec.StatusCode, &rec.Body, &rec.ContentType, &rec.CreatedAt, &rec.ExpiresAt)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.IdempotencyRecord{}, false, nil
	}
	if err != nil {
		return ports.IdempotencyRecord{}, false, err
	}
	rec.CreatedAt, rec.ExpiresAt = rec.CreatedAt.UTC(), rec.ExpiresAt.UTC()
	return rec, true, nil
}

const claimIdempotencySQL = `SELECT claimed, stored, rec_fingerprint, rec_status_code, rec_body, rec_content_type,
    rec_created_at, rec_expires_at
FROM idempotency_claim($1, $2, $3, $4, $5)`

// Claim runs Find, TryLock and Find again in one round trip (the idempotency_claim function,
// migrations 000035 and 000057, whose lock key is TryLock's). A pipeline batch's unit whose
// request named the ledger rows it will lock (ports.LedgerIntent) finds its claim made by the
// batch's claim of every such unit's key (batch_claim.go), or, when that ran before it reached
// its claim, locks them in its own (claim_lock.go).
func (r idempotencyRepo) Claim(ctx context.Context, scope string, env core.Environment, key string, now time.Time) (ports.IdempotencyRecord, bool, bool, error) {
	if in, ok := claimLocking(ctx, r.unit); ok {
		if c, ok := r.unit.m.batchClaim(ctx, in, scope, env, key, now); ok { // the batch's claim (batch_claim.go)
			if rec, ok := r.unit.heldRecord(recordKey{scope, string(env), key}, now); ok {
				return rec, true, false, nil // a twin: an earlier unit of the batch stored it
			}
			return c.rec, c.stored, c.claimed, nil
		}
	}
	if rec, ok := recordInTurn(r.unit, scope, string(env), key, now); ok {
		return rec, true, false, nil // an earlier unit of the batch stored it (batch_records.go)
	}
	if in, ok := claimLocking(ctx, r.unit); ok {
		return r.claimLocked(ctx, r.unit, in, scope, env, key, now)
	}
	var (
		claimed, stored      bool
		fingerprint, ctype   sql.NullString
		status               sql.NullInt64
		body                 []byte
		createdAt, expiresAt sql.NullTime
	)
	// The claim is a unit's first statement: it carries the transaction's BEGIN (driver.go).
	err := rawQuerier(r.db).QueryRowContext(ctx, claimIdempotencySQL, withPending{}, scopeTenant(scope), scope, string(env), key, now).
		Scan(&claimed, &stored, &fingerprint, &status, &body, &ctype, &createdAt, &expiresAt)
	if err != nil {
		return ports.IdempotencyRecord{}, false, false, err
	}
	if !stored {
		return ports.IdempotencyRecord{}, false, claimed, nil
	}
	return ports.IdempotencyRecord{
		Scope: scope, Environment: env, Key: key, Fingerprint: fingerprint.String, StatusCode: int(status.Int64),
		Body: body, ContentType: ctype.String, CreatedAt: createdAt.Time.UTC(), ExpiresAt: expiresAt.Time.UTC(),
	}, true, claimed, nil
}

const saveIdempotencySQL = `INSERT INTO idempotency_keys
    (tenant_id, scope, environment, key, fingerprint, status_code, body, content_type, created_at, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (tenant_id, scope, environment, key) DO UPDATE SET
    fingerprint = EXCLUDED.fingerprint, status_code = EXCLUDED.status_code, body = EXCLUDED.body,
    content_type = EXCLUDED.content_type, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
WHERE idempotency_keys.expires_at <= EXCLUDED.created_at`

// Save inserts the record, replacing an expired one with the same key (a live one is never
// overwritten: the caller holds the key's lock and has checked for it). Called by the unit of
// work that owns its transaction, outside any nested unit (Idempotent, whose last statement
// it is), the insert travels with the next statement, in practice with COMMIT (driver.go): its
// failure, a constraint or serialization error, then fails the commit and so the unit, as the
// unit fails when Save returns the error. Inside a pipeline batch (not on Citus) the record is
// held instead and the batch writes it with its ledger rows before its COMMIT (batch_records.go).
func (r idempotencyRepo) Save(ctx context.Context, rec ports.IdempotencyRecord) error {
	if depth, _ := ctx.Value(depthKey{}).(int); r.unit != nil && depth == 0 && r.unit.holdRecord(rec) {
		return nil // written by the batch with its ledger rows, before its COMMIT (batch_records.go)
	}
	body := rec.Body
	if body == nil {
		body = []byte{} // NOT NULL: an empty body is stored as empty, not absent
	}
	args := []any{scopeTenant(rec.Scope), rec.Scope, string(rec.Environment), rec.Key, rec.Fingerprint, rec.StatusCode, body,
		rec.ContentType, rec.CreatedAt, rec.ExpiresAt}
	if deferrable(ctx) {
		args = append([]any{deferExec{}}, args...)
	}
	_, err := rawQuerier(r.db).ExecContext(ctx, saveIdempotencySQL, args...)
	return err
}

// DeleteExpired removes up to limit expired records. It names them by their key, not their
// ctid: on Citus the rows live in shards on several workers, where a row's ctid names nothing
// the coordinator can delete by (the subquery's keys are gathered first, then deleted per shard).
func (r idempotencyRepo) DeleteExpired(ctx context.Context, now time.Time, limit int) (int, error) {
	res, err := r.db.NewRaw(`DELETE FROM idempotency_keys WHERE (tenant_id, scope, environment, key) IN (
		SELECT tenant_id, scope, environment, key FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)`, now, limit).Exec(ctx)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
