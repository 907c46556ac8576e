package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// WithDatabase returns serverURL with its database name replaced by dbname,
// keeping host, credentials and parameters. It is how one server URL (say
// TEST_DATABASE_URL) yields the URL of each database created on it.
func WithDatabase(serverURL, dbname string) (string, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", fmt.Errorf("pgcluster: parse database URL: %w", err)
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return "", fmt.Errorf("pgcluster: database URL must be postgres://…, got scheme %q", u.Scheme)
	}
	u.Path = "/" + dbname
	u.RawPath = ""
	return u.String(), nil
}

// CreateDatabase creates dbname on the server of serverURL unless it exists.
// Concurrent creators of the same name both succeed.
func CreateDatabase(ctx context.Context, serverURL, dbname string) error {
	return withConn(ctx, serverURL, func(conn *pgx.Conn) error {
		var exists bool
		if err := conn.QueryRow(ctx, "select exists(select 1 from pg_database where datname = $1)", dbname).Scan(&exists); err != nil {
			return err
		}
		if exists {
			return nil
		}
		_, err := conn.Exec(ctx, "create database "+pgx.Identifier{dbname}.Sanitize())
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && (pgErr.Code == "42P04" || pgErr.Code == "23505") {
			return nil // duplicate_database, or a racing creator won the catalog insert
		}
		return err
	})
}

// DropDatabase drops dbname, disconnecting its sessions first (a test that
// leaked a pool must not make cleanup fail).
func DropDatabase(ctx context.Context, serverURL, dbname string) error {
	return withConn(ctx, serverURL, func(conn *pgx.Conn) error {
		ident := pgx.Identifier{dbname}.Sanitize()
		_, err := conn.Exec(ctx, "drop database if exists "+ident+" with (force)")
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42601" {
			return err
		}
		// Before PostgreSQL 13 there is no WITH (FORCE).
		if _, err := conn.Exec(ctx, "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()", dbname); err != nil {
			return err
		}
		_, err = conn.Exec(ctx, "drop database if exists "+ident)
		return err
	})
}

// withConn runs fn on a connection to the maintenance database `postgres`
// of serverURL's server: CREATE/DROP DATABASE cannot run inside the target.
func withConn(ctx context.Context, serverURL string, fn func(*pgx.Conn) error) error {
	admin, err := WithDatabase(serverURL, "postgres")
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("pgcluster: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := fn(conn); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	return nil
}

// WaitReady polls serverURL until a query succeeds or ctx ends, riding out
// "the database system is starting up" and refused connections.
func WaitReady(ctx context.Context, serverURL string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		last = withConn(ctx, serverURL, func(conn *pgx.Conn) error {
			_, err := conn.Exec(ctx, "select 1")
			return err
		})
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgcluster: server not ready after %s: %w", timeout, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
