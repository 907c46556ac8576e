// Package postgres is the Bun + pgdialect adapter: the unit of work, the repositories and the
// migrations runner. Bun models live here and convert explicitly to domain types.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/golang-migrate/migrate/v4"
	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"corridor/migrations"
)

// Options bound the connection pool.
type Options struct {
	MaxOpenConns int
	MaxIdleConns int
}

// Open connects to url and checks the connection.
func Open(ctx context.Context, url string, opts Options) (*bun.DB, error) {
	sqldb, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if opts.MaxOpenConns <= 0 {
		opts.MaxOpenConns = 40
	}
	if opts.MaxIdleConns <= 0 {
		opts.MaxIdleConns = opts.MaxOpenConns
	}
	sqldb.SetMaxOpenConns(opts.MaxOpenConns)
	sqldb.SetMaxIdleConns(opts.MaxIdleConns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	db := bun.NewDB(sqldb, pgdialect.New())
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("reach database: %w", err)
	}
	return db, nil
}

var _ = stdlib.GetDefaultDriver // registers the "pgx" database/sql driver

// Migrate applies every embedded migration that is not yet applied. golang-migrate holds an
// advisory lock, so two processes migrating at once are safe.
func Migrate(url string) (version uint, err error) {
	sqldb, err := sql.Open("pgx", url)
	if err != nil {
		return 0, err
	}
	defer sqldb.Close()
	driver, err := migratepgx.WithInstance(sqldb, &migratepgx.Config{})
	if err != nil {
		return 0, fmt.Errorf("migrate driver: %w", err)
	}
	source, err := iofs.New(migrations.FS, ".")
	if err != nil {
		return 0, fmt.Errorf("migrate source: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", source, "pgx5", driver)
	if err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return 0, fmt.Errorf("migrate up: %w", err)
	}
	v, dirty, err := m.Version()
	if err != nil {
		return 0, err
	}
	if dirty {
		return v, fmt.Errorf("migration %d is dirty: fix it by hand, then force the version", v)
	}
	return v, nil
}
