package postgres

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"
)

// rowModel is a Bun model that converts back to its domain type through the same checks a
// constructor makes (docs/architecture.md: a row read back is checked like a new object).
type rowModel[D any] interface{ domain() (D, error) }

// domainRows converts rows in order and fails on the first row that does not pass.
func domainRows[D any, M rowModel[D]](rows []M) ([]D, error) {
	out := make([]D, 0, len(rows))
	for _, m := range rows {
		d, err := m.domain()
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// infallibleModel is a Bun model whose conversion back cannot fail (every column is valid as stored).
type infallibleModel[D any] interface{ domain() D }

// infallibleRows converts rows in order.
func infallibleRows[D any, M infallibleModel[D]](rows []M) []D {
	out := make([]D, len(rows))
	for i, m := range rows {
		out[i] = m.domain()
	}
	return out
}

// oneRow scans the single row q selects into a model and converts it; no row is notFound.
func oneRow[D any, M rowModel[D]](ctx context.Context, q *bun.SelectQuery, notFound error) (D, error) {
	var m M
	var zero D
	err := q.Model(&m).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return zero, notFound
	}
	if err != nil {
		return zero, err
	}
	return m.domain()
}
