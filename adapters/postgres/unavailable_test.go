package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"corridor/core"
)

// A statement cancelled by statement_timeout or the request's deadline, and a deadline passed
// waiting for a connection, are SERVICE_UNAVAILABLE (503), not an internal error; a domain
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
	} {
		var de *core.Error
		if got := unavailable(c.err); !errors.As(got, &de) || de.Code != c.want {
			t.Errorf("%s: got %v, want %s", c.name, got, c.want)
		}
	}
	if plain := errors.New("other"); unavailable(plain) != plain {
		t.Error("an unrelated error was translated")
	}
}
