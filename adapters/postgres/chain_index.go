package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/uptrace/bun"

	"corridor/core"
	"corridor/ports"
)

// chainIndexRepo implements ports.ChainIndexRepo: the ledger mirror's cursors
// (chain_index_cursors) and the wallets it watches (read from wallets).
type chainIndexRepo struct{ db bun.IDB }

var _ ports.ChainIndexRepo = chainIndexRepo{}

type chainCursorRow struct {
	Environment string    `bun:"environment"`
	ChainID     int64     `bun:"chain_id"`
	NextBlock   int64     `bun:"next_block"`
	UpdatedAt   time.Time `bun:"updated_at"`
}

func (r chainCursorRow) domain() (ports.ChainCursor, error) {
	env := core.Environment(r.Environment)
	if !env.Valid() || r.ChainID <= 0 || r.NextBlock < 0 {
		return ports.ChainCursor{}, fmt.Errorf("postgres: corrupt chain cursor %+v", r)
	}
	return ports.ChainCursor{Environment: env, ChainID: r.ChainID, NextBlock: uint64(r.NextBlock), UpdatedAt: r.UpdatedAt.UTC()}, nil
}

func (r chainIndexRepo) LockCursor(ctx context.Context, env core.Environment, chainID int64, now time.Time) (ports.ChainCursor, error) {
	if _, err := r.db.ExecContext(ctx, `INSERT INTO chain_index_cursors (environment, chain_id, next_block, updated_at)
		VALUES (?, ?, 0, ?) ON CONFLICT (environment, chain_id) DO NOTHING`, string(env), chainID, now); err != nil {
		return ports.ChainCursor{}, err
	}
	var row chainCursorRow
	err := r.db.NewRaw(`SELECT environment, chain_id, next_block, updated_at FROM chain_index_cursors
		WHERE environment = ? AND chain_id = ? FOR UPDATE`, string(env), chainID).Scan(ctx, &row)
	if err != nil {
		return ports.ChainCursor{}, err
	}
	return row.domain()
}

func (r chainIndexRepo) SaveCursor(ctx context.Context, c ports.ChainCursor) error {
	if c.NextBlock > math.MaxInt64 {
		return fmt.Errorf("postgres: chain cursor block %d out of range", c.NextBlock)
	}
	res, err := r.db.ExecContext(ctx, `UPDATE chain_index_cursors SET next_block = ?, updated_at = ?
		WHERE environment = ? AND chain_id = ?`, int64(c.NextBlock), c.UpdatedAt, string(c.Environment), c.ChainID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("postgres: chain cursor %s/%d not saved (%d rows, %v)", c.Environment, c.ChainID, n, err)
	}
	return nil
}

func (r chainIndexRepo) FindCursor(ctx context.Context, env core.Environment, chainID int64) (ports.ChainCursor, bool, error) {
	var row chainCursorRow
	err := r.db.NewRaw(`SELECT environment, chain_id, next_block, updated_at FROM chain_index_cursors
		WHERE environment = ? AND chain_id = ?`, string(env), chainID).Scan(ctx, &row)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.ChainCursor{}, false, nil
	}
	if err != nil {
		return ports.ChainCursor{}, false, err
	}
	c, err := row.domain()
	return c, err == nil, err
}

func (r chainIndexRepo) ListChainWallets(ctx context.Context, env core.Environment, chainID int64, limit int) ([]ports.ChainWallet, error) {
	// One more than the bound is allowed, so a caller can tell "exactly the bound" from "more".
	if limit <= 0 || limit > ports.MaxChainWallets+1 {
		limit = ports.MaxChainWallets + 1
	}
	var rows []struct {
		ID       string `bun:"id"`
		TenantID string `bun:"tenant_id"`
		Address  string `bun:"address"`
	}
	err := r.db.NewRaw(`SELECT id, tenant_id, address FROM wallets WHERE environment = ? AND chain_id = ?
		ORDER BY id LIMIT ?`, string(env), chainID, limit).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	out := make([]ports.ChainWallet, len(rows))
	for i, row := range rows {
		out[i] = ports.ChainWallet{ID: row.ID, TenantID: row.TenantID, Address: row.Address}
	}
	return out, nil
}
