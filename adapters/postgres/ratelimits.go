package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"
)

// SharedLimits keeps rate limits in the database, so every replica counts against the same
// figure (issue #32). Each decision is one statement on an unlogged table, read and written
// in the database's own clock, so replicas whose clocks drift still agree. Only a refusal pays
// a second statement, to compute its wait.
type SharedLimits struct{ db bun.IDB }

// NewSharedLimits returns the shared limiter on db.
func NewSharedLimits(db bun.IDB) *SharedLimits { return &SharedLimits{db: db} }

// TakeToken spends one token of key's bucket refilled at perSecond up to burst (GCRA: the row
// keeps the theoretical arrival time of the next request, and a request is let through while
// that time stays within burst emission intervals of now). A refusal changes nothing and
// returns the wait until one token is back.
func (l *SharedLimits) TakeToken(ctx context.Context, key string, perSecond float64, burst int) (bool, time.Duration, error) {
	if perSecond <= 0 || burst <= 0 {
		return false, 0, errors.New("postgres: a token bucket needs a positive rate and burst")
	}
	emission := max(int64(float64(time.Second/time.Microsecond)/perSecond), 1)
	tolerance := emission * int64(burst)
	var one int
	err := l.db.QueryRowContext(ctx, `
		INSERT INTO rate_limit_buckets AS b (key, tat) VALUES (?0, now() + ?1 * interval '1 microsecond')
		ON CONFLICT (key) DO UPDATE SET tat = greatest(b.tat, now()) + ?1 * interval '1 microsecond'
		WHERE greatest(b.tat, now()) + ?1 * interval '1 microsecond' - now() <= ?2 * interval '1 microsecond'
		RETURNING 1`, key, emission, tolerance).Scan(&one)
	if err == nil {
		return true, 0, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return false, 0, err
	}
	var waitMicros int64
	err = l.db.QueryRowContext(ctx, `
		SELECT (extract(epoch FROM greatest(tat, now()) - now()) * 1000000)::bigint + ?1 - ?2
		FROM rate_limit_buckets WHERE key = ?0`, key, emission, tolerance).Scan(&waitMicros)
	if errors.Is(err, sql.ErrNoRows) {
		return false, time.Duration(emission) * time.Microsecond, nil // swept meanwhile
	}
	return false, max(time.Duration(waitMicros)*time.Microsecond, time.Millisecond), err
}

// TakeInWindow records a request of key when fewer than limit were recorded in the rolling
// window before it; otherwise it records nothing and returns the wait until the oldest of them
// leaves the window. The row keeps those times only (at most limit of them).
func (l *SharedLimits) TakeInWindow(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error) {
	if limit <= 0 || window <= 0 {
		return false, 0, errors.New("postgres: a window limit needs a positive limit and window")
	}
	micros := window.Microseconds()
	var one int
	err := l.db.QueryRowContext(ctx, `
		INSERT INTO rate_limit_windows AS w (key, times, expires_at)
		VALUES (?0, ARRAY[now()], now() + ?1 * interval '1 microsecond')
		ON CONFLICT (key) DO UPDATE SET
			times = coalesce((SELECT array_agg(t ORDER BY t) FROM unnest(w.times) t
				WHERE t > now() - ?1 * interval '1 microsecond'), '{}'::timestamptz[]) || now(),
			expires_at = now() + ?1 * interval '1 microsecond'
		WHERE (SELECT count(*) FROM unnest(w.times) t WHERE t > now() - ?1 * interval '1 microsecond') < ?2
		RETURNING 1`, key, micros, limit).Scan(&one)
	if err == nil {
		return true, 0, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return false, 0, err
	}
	var waitMicros sql.NullInt64
	err = l.db.QueryRowContext(ctx, `
		SELECT (extract(epoch FROM min(t) + ?1 * interval '1 microsecond' - now()) * 1000000)::bigint
		FROM rate_limit_windows, unnest(times) t
		WHERE key = ?0 AND t > now() - ?1 * interval '1 microsecond'`, key, micros).Scan(&waitMicros)
	if err != nil || !waitMicros.Valid {
		return false, time.Second, err
	}
	return false, max(time.Duration(waitMicros.Int64)*time.Microsecond, time.Millisecond), nil
}

// Sweep deletes the rows that no longer limit anyone: a bucket whose arrival time has passed
// is full, as if it had no row, and a window whose last request left it is empty.
func (l *SharedLimits) Sweep(ctx context.Context) (int64, error) {
	var swept int64
	for _, q := range []string{
		`DELETE FROM rate_limit_buckets WHERE tat < now()`,
		`DELETE FROM rate_limit_windows WHERE expires_at < now()`,
	} {
		res, err := l.db.ExecContext(ctx, q)
		if err != nil {
			return swept, err
		}
		n, _ := res.RowsAffected()
		swept += n
	}
	return swept, nil
}
