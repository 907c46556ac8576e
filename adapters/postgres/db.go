// Package postgres is the Bun + pgdialect adapter: the unit of work, the repositories and the
// migrations runner. Bun models live here and convert explicitly to domain types.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/golang-migrate/migrate/v4"
	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/corridorhq/corridor/migrations"
)

// Default server-side time-outs of every pooled connection.
const (
	// DefaultStatementTimeout ends any one statement that runs longer: no request or job
	// statement needs more, and a runaway one must not hold its locks and connection.
	DefaultStatementTimeout = 30 * time.Second
	// DefaultIdleInTransactionTimeout ends a session whose transaction sits idle longer, so a
	// transaction stuck waiting on something outside the database gives its connection and
	// locks back.
	DefaultIdleInTransactionTimeout = 60 * time.Second
)

// Options bound the connection pool and its connections.
type Options struct {
	MaxOpenConns int
	MaxIdleConns int
	// StatementTimeout is statement_timeout of every connection: 0 takes
	// DefaultStatementTimeout, a negative value turns it off (offline tools such as
	// ledger verify, which read the whole history in one statement).
	StatementTimeout time.Duration
	// IdleInTransactionTimeout is idle_in_transaction_session_timeout of every connection: 0
	// takes DefaultIdleInTransactionTimeout, a negative value turns it off.
	IdleInTransactionTimeout time.Duration
}

// Open connects to url and checks the connection. The time-outs travel in the start-up
// message of every connection the pool opens, so no connection ever runs without them.
func Open(ctx context.Context, url string, opts Options) (*bun.DB, error) {
	connConfig, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	for name, value := range opts.ServerTimeouts() {
		connConfig.RuntimeParams[name] = value
	}
	// pgx's stdlib driver with BEGIN, savepoints and deferrable statements sent with the next
	// statement (driver.go).
	sqldb := sql.OpenDB(lazyConnector{inner: stdlib.GetConnector(*connConfig)})
	if opts.MaxOpenConns <= 0 {
		opts.MaxOpenConns = 40
	}
	if opts.MaxIdleConns <= 0 {
		opts.MaxIdleConns = opts.MaxOpenConns
	}
	sqldb.SetMaxOpenConns(opts.MaxOpenConns)
	sqldb.SetMaxIdleConns(opts.MaxIdleConns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	db := bun.NewDB(sqldb, pgdialect.New()).WithQueryHook(lockWaitHook{}).WithQueryHook(newTraceHook())
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("reach database: %w", err)
	}
	return db, nil
}

// ServerTimeouts are the run-time parameters every connection starts with, for pools opened
// elsewhere (the job workers') to carry the same limits.
func (opts Options) ServerTimeouts() map[string]string {
	return map[string]string{
		"statement_timeout":                   timeoutSetting(opts.StatementTimeout, DefaultStatementTimeout),
		"idle_in_transaction_session_timeout": timeoutSetting(opts.IdleInTransactionTimeout, DefaultIdleInTransactionTimeout),
	}
}

// timeoutSetting is a time-out in whole milliseconds (PostgreSQL's unit for both settings):
// zero takes def, a negative value is 0, which PostgreSQL reads as off.
func timeoutSetting(d, def time.Duration) string {
	switch {
	case d == 0:
		d = def
	case d < 0:
		return "0"
	}
	return strconv.FormatInt(max(d.Milliseconds(), 1), 10)
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
