package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

type relayerBudgetRepo struct{ db bun.IDB }

var _ ports.RelayerBudgetRepo = relayerBudgetRepo{}

// Charge counts one transaction in a single statement: the upsert's WHERE leaves a count that
// reached the limit unchanged and returns no row, so concurrent charges of every replica
// serialize on the row and never overshoot.
func (r relayerBudgetRepo) Charge(ctx context.Context, tenantID string, env core.Environment, day time.Time, limit int) (bool, error) {
	var count int
	err := r.db.QueryRowContext(ctx, `
		INSERT INTO relayer_tx_counts (tenant_id, environment, day, count) VALUES (?, ?, ?, 1)
		ON CONFLICT (tenant_id, environment, day) DO UPDATE SET count = relayer_tx_counts.count + 1
		WHERE relayer_tx_counts.count < ?
		RETURNING count`, tenantID, string(env), day.UTC().Format(time.DateOnly), limit).Scan(&count)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}
