package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
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
	var rows []chainWalletRow
	err := r.db.NewRaw(`SELECT id, tenant_id, address FROM wallets WHERE environment = ? AND chain_id = ?
		ORDER BY id LIMIT ?`, string(env), chainID, limit).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	return infallibleRows(rows), nil
}

// chainWalletRow is a wallet as the chain watchers see it.
type chainWalletRow struct {
	ID       string `bun:"id"`
	TenantID string `bun:"tenant_id"`
	Address  string `bun:"address"`
}

func (row chainWalletRow) domain() ports.ChainWallet {
	return ports.ChainWallet{ID: row.ID, TenantID: row.TenantID, Address: row.Address}
}

type indexedBlockRow struct {
	Indexer     string    `bun:"indexer"`
	Environment string    `bun:"environment"`
	ChainID     int64     `bun:"chain_id"`
	BlockNumber int64     `bun:"block_number"`
	BlockHash   string    `bun:"block_hash"`
	Items       []string  `bun:"items,array"`
	RecordedAt  time.Time `bun:"recorded_at"`
}

func (r indexedBlockRow) domain() (ports.IndexedBlock, error) {
	env := core.Environment(r.Environment)
	if !env.Valid() || r.ChainID <= 0 || r.BlockNumber < 0 {
		return ports.IndexedBlock{}, fmt.Errorf("postgres: corrupt indexed block %+v", r)
	}
	return ports.IndexedBlock{Indexer: ports.Indexer(r.Indexer), Environment: env, ChainID: r.ChainID, Number: uint64(r.BlockNumber),
		Hash: r.BlockHash, Items: r.Items, RecordedAt: r.RecordedAt.UTC()}, nil
}

func (r chainIndexRepo) RecordIndexedBlock(ctx context.Context, b ports.IndexedBlock) error {
	if b.Number > math.MaxInt64 {
		return fmt.Errorf("postgres: indexed block %d out of range", b.Number)
	}
	items := b.Items
	if items == nil {
		items = []string{}
	}
	res, err := r.db.NewRaw(`INSERT INTO chain_indexed_blocks (indexer, environment, chain_id, block_number, block_hash, items, recorded_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (indexer, environment, chain_id, block_number) DO UPDATE
		SET items = ARRAY(SELECT DISTINCT unnest(chain_indexed_blocks.items || EXCLUDED.items) ORDER BY 1)
		WHERE chain_indexed_blocks.block_hash = EXCLUDED.block_hash`,
		string(b.Indexer), string(b.Environment), b.ChainID, int64(b.Number), b.Hash, pgdialect.Array(items), b.RecordedAt.UTC()).Exec(ctx)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("postgres: block %d of %s/%s already recorded with another hash than %s (%d rows, %v)", b.Number, b.Indexer, b.Environment, b.Hash, n, err)
	}
	return nil
}

func (r chainIndexRepo) RecentIndexedBlocks(ctx context.Context, indexer ports.Indexer, env core.Environment, chainID int64, limit int) ([]ports.IndexedBlock, error) {
	if limit <= 0 || limit > ports.MaxReorgDepth {
		limit = ports.MaxReorgDepth
	}
	var rows []indexedBlockRow
	err := r.db.NewRaw(`SELECT indexer, environment, chain_id, block_number, block_hash, items, recorded_at FROM chain_indexed_blocks
		WHERE indexer = ? AND environment = ? AND chain_id = ? ORDER BY block_number DESC LIMIT ?`,
		string(indexer), string(env), chainID, limit).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	return domainRows(rows)
}

func (r chainIndexRepo) DeleteIndexedBlocksFrom(ctx context.Context, indexer ports.Indexer, env core.Environment, chainID int64, from uint64) ([]ports.IndexedBlock, error) {
	if from > math.MaxInt64 {
		return nil, nil
	}
	var rows []indexedBlockRow
	err := r.db.NewRaw(`DELETE FROM chain_indexed_blocks WHERE indexer = ? AND environment = ? AND chain_id = ? AND block_number >= ?
		RETURNING indexer, environment, chain_id, block_number, block_hash, items, recorded_at`,
		string(indexer), string(env), chainID, int64(from)).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].BlockNumber < rows[j].BlockNumber })
	return domainRows(rows)
}

func (r chainIndexRepo) PruneIndexedBlocks(ctx context.Context, indexer ports.Indexer, env core.Environment, chainID int64, below uint64) error {
	if below > math.MaxInt64 {
		return fmt.Errorf("postgres: indexed block %d out of range", below)
	}
	_, err := r.db.ExecContext(ctx, `DELETE FROM chain_indexed_blocks WHERE indexer = ? AND environment = ? AND chain_id = ?
		AND block_number < ? AND cardinality(items) = 0`, string(indexer), string(env), chainID, int64(below))
	return err
}

type backgroundFailureRow struct {
	Pass          string         `bun:"pass"`
	Item          string         `bun:"item"`
	Environment   sql.NullString `bun:"environment"`
	Status        string         `bun:"status"`
	Attempts      int            `bun:"attempts"`
	LastError     string         `bun:"last_error"`
	FirstFailedAt time.Time      `bun:"first_failed_at"`
	LastFailedAt  time.Time      `bun:"last_failed_at"`
}

func (r backgroundFailureRow) domain() ports.BackgroundFailure {
	return ports.BackgroundFailure{Pass: r.Pass, Item: r.Item, Environment: core.Environment(r.Environment.String),
		Status: ports.FailureStatus(r.Status), Attempts: r.Attempts, LastError: r.LastError,
		FirstFailedAt: r.FirstFailedAt.UTC(), LastFailedAt: r.LastFailedAt.UTC()}
}

// maxFailureErrorLength bounds the stored error text.
const maxFailureErrorLength = 2000

func (r chainIndexRepo) RecordFailure(ctx context.Context, pass, item string, env core.Environment, lastError string, maxAttempts int, at time.Time) (ports.BackgroundFailure, error) {
	if len(lastError) > maxFailureErrorLength {
		lastError = lastError[:maxFailureErrorLength]
	}
	maxAttempts = max(maxAttempts, 1)
	envValue := sql.NullString{String: string(env), Valid: env != ""}
	var row backgroundFailureRow
	err := r.db.NewRaw(`INSERT INTO background_failures AS f (pass, item, environment, status, attempts, last_error, first_failed_at, last_failed_at)
		VALUES (?, ?, ?, CASE WHEN ? <= 1 THEN 'DEAD' ELSE 'RETRYING' END, 1, ?, ?, ?)
		ON CONFLICT (pass, item) DO UPDATE SET attempts = f.attempts + 1, last_error = EXCLUDED.last_error,
			last_failed_at = EXCLUDED.last_failed_at,
			status = CASE WHEN f.attempts + 1 >= ? THEN 'DEAD' ELSE 'RETRYING' END
		RETURNING pass, item, environment, status, attempts, last_error, first_failed_at, last_failed_at`,
		pass, item, envValue, maxAttempts, lastError, at.UTC(), at.UTC(), maxAttempts).Scan(ctx, &row)
	if err != nil {
		return ports.BackgroundFailure{}, err
	}
	return row.domain(), nil
}

func (r chainIndexRepo) ClearFailure(ctx context.Context, pass, item string) error {
	_, err := r.db.ExecContext(ctx, `DELETE FROM background_failures WHERE pass = ? AND item = ?`, pass, item)
	return err
}

func (r chainIndexRepo) ListFailures(ctx context.Context, pass string, limit int) ([]ports.BackgroundFailure, error) {
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	var rows []backgroundFailureRow
	err := r.db.NewRaw(`SELECT pass, item, environment, status, attempts, last_error, first_failed_at, last_failed_at
		FROM background_failures WHERE pass = ? ORDER BY last_failed_at DESC, item LIMIT ?`, pass, limit).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	return infallibleRows(rows), nil
}
