package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/corridorhq/corridor/core"
)

// A statement cancelled by statement_timeout or the request's deadline, a deadline passed
// waiting for a connection, and a lost connection are SERVICE_UNAVAILABLE (503), not an internal error; a domain
// error keeps its code.
func TestUnavailable(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want core.Code
	}{
		{"statement timeout", fmt.Errorf("select: %w", &pgconn.PgError{Code: "57014"}), core.CodeServiceUnavailable},
		{"deadline", fmt.Errorf("acquire: %w", context.DeadlineExceeded), core.CodeServiceUnavailable},
		{"chain unavailable", core.E(core.CodeChainUnavailable, "node"), core.CodeChainUnavailable},
		{"connection reset", fmt.Errorf("prepare: %w", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), core.CodeServiceUnavailable},
		{"connection closed", fmt.Errorf("commit: %w", pgconn.ErrConnClosed), core.CodeServiceUnavailable},
		{"transaction's connection closed", pgx.ErrTxClosed, core.CodeServiceUnavailable},
		{"stream ended", fmt.Errorf("receive: %w", io.ErrUnexpectedEOF), core.CodeServiceUnavailable},
		{"bad pooled connection", driver.ErrBadConn, core.CodeServiceUnavailable},
		{"server shutting down", &pgconn.PgError{Code: "57P01"}, core.CodeServiceUnavailable},
		{"server starting", &pgconn.PgError{Code: "57P03"}, core.CodeServiceUnavailable},
		{"connection exception", &pgconn.PgError{Code: "08006"}, core.CodeServiceUnavailable},
		// A Citus coordinator that lost a worker mid-unit raises internal errors (XX000).
		{"citus: a connection of the transaction failed", &pgconn.PgError{Code: "XX000",
			Message: "failure on connection marked as essential: 127.0.0.1:9701"}, core.CodeServiceUnavailable},
		{"citus: the worker's connection closed", &pgconn.PgError{Code: "XX000",
			Message: "server closed the connection unexpectedly", Where: "while executing command on 127.0.0.1:9701"}, core.CodeServiceUnavailable},
	} {
		var de *core.Error
		if got := unavailable(c.err); !errors.As(got, &de) || de.Code != c.want {
			t.Errorf("%s: got %v, want %s", c.name, got, c.want)
		}
	}
	for _, other := range []error{errors.New("other"), &pgconn.PgError{Code: "23505"},
		&pgconn.PgError{Code: "XX000", Message: "cache lookup failed"},
		&pgconn.PgError{Code: "XX000", Message: "could not find shard", Where: "while executing command on 127.0.0.1:9701"}} {
		if unavailable(other) != other {
			t.Errorf("an unrelated error was translated: %v", other)
		}
	}
}
