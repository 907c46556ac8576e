package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"corridor/core"
	"corridor/ports"
)

type idempotencyModel struct {
	bun.BaseModel `bun:"table:idempotency_keys"`
	Scope         string    `bun:"scope,pk"`
	Environment   string    `bun:"environment,pk"`
	Key           string    `bun:"key,pk"`
	Fingerprint   string    `bun:"fingerprint"`
	StatusCode    int       `bun:"status_code"`
	Body          []byte    `bun:"body"`
	ContentType   string    `bun:"content_type"`
	CreatedAt     time.Time `bun:"created_at"`
	ExpiresAt     time.Time `bun:"expires_at"`
}

type idempotencyRepo struct{ db bun.IDB }

// TryLock uses a transaction-scoped advisory lock: it is released by commit or rollback, so a
// crashed request never leaves a key stuck "in progress".
func (r idempotencyRepo) TryLock(ctx context.Context, scope string, env core.Environment, key string) (bool, error) {
	var ok bool
	err := r.db.NewRaw("SELECT pg_try_advisory_xact_lock(hashtextextended(?, 2))",
		scope+"|"+string(env)+"|"+key).Scan(ctx, &ok)
	return ok, err
}

func (r idempotencyRepo) Find(ctx context.Context, scope string, env core.Environment, key string, now time.Time) (ports.IdempotencyRecord, bool, error) {
	var m idempotencyModel
	err := r.db.NewSelect().Model(&m).
		Where("scope = ? AND environment = ? AND key = ? AND expires_at > ?", scope, env, key, now).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.IdempotencyRecord{}, false, nil
	}
	if err != nil {
		return ports.IdempotencyRecord{}, false, err
	}
	return ports.IdempotencyRecord{
		Scope: m.Scope, Environment: core.Environment(m.Environment), Key: m.Key,
		Fingerprint: m.Fingerprint, StatusCode: m.StatusCode, Body: m.Body, ContentType: m.ContentType,
		CreatedAt: m.CreatedAt.UTC(), ExpiresAt: m.ExpiresAt.UTC(),
	}, true, nil
}

// Save inserts the record, replacing an expired one with the same key (a live one is never
// overwritten: the caller holds the key's lock and has checked for it).
func (r idempotencyRepo) Save(ctx context.Context, rec ports.IdempotencyRecord) error {
	_, err := r.db.NewRaw(`INSERT INTO idempotency_keys
		(scope, environment, key, fingerprint, status_code, body, content_type, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (scope, environment, key) DO UPDATE SET
			fingerprint = EXCLUDED.fingerprint, status_code = EXCLUDED.status_code, body = EXCLUDED.body,
			content_type = EXCLUDED.content_type, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
		WHERE idempotency_keys.expires_at <= EXCLUDED.created_at`,
		rec.Scope, string(rec.Environment), rec.Key, rec.Fingerprint, rec.StatusCode, rec.Body,
		rec.ContentType, rec.CreatedAt, rec.ExpiresAt).Exec(ctx)
	return err
}

// DeleteExpired removes up to limit expired records.
func (r idempotencyRepo) DeleteExpired(ctx context.Context, now time.Time, limit int) (int, error) {
	res, err := r.db.NewRaw(`DELETE FROM idempotency_keys WHERE ctid IN (
		SELECT ctid FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)`, now, limit).Exec(ctx)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
