package postgres

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// AnchorHead is one chain head an anchor covers (the port's type, named here for the verifier
// and the CLI).
type AnchorHead = ports.AnchorHead

// anchorChainHead is the ledger's view of a recorded head, a leaf of the anchor's Merkle tree.
func anchorChainHead(h AnchorHead) (ledger.ChainHead, error) {
	raw, err := hex.DecodeString(h.Head)
	if err != nil {
		return ledger.ChainHead{}, fmt.Errorf("anchor head %s/%d: %w", h.Environment, h.Stripe, err)
	}
	return ledger.ChainHead{Environment: h.Environment, Stripe: h.Stripe, Position: h.Position, Hash: raw}, nil
}

// LedgerAnchor is one row of ledger_anchors.
type LedgerAnchor = ports.LedgerAnchor

// LedgerAnchors reads and writes ledger_anchors for the anchor pass and the verifier.
type LedgerAnchors struct{ db *bun.DB }

var _ ports.LedgerAnchorStore = (*LedgerAnchors)(nil)

// NewLedgerAnchors returns the anchor store on db.
func NewLedgerAnchors(db *bun.DB) *LedgerAnchors { return &LedgerAnchors{db: db} }

const anchorColumns = `id, created_at, root, heads, chain_environment, chain_id, payload,
    coalesce(tx_hash, ''), coalesce(block_number, 0), mined_at`

type anchorQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func scanAnchor(row rowScanner) (LedgerAnchor, error) {
	var a LedgerAnchor
	var heads []byte
	var minedAt sql.NullTime
	var block int64
	if err := row.Scan(&a.ID, &a.CreatedAt, &a.Root, &heads, &a.ChainEnvironment, &a.ChainID, &a.Payload,
		&a.TxHash, &block, &minedAt); err != nil {
		return a, err
	}
	if err := json.Unmarshal(heads, &a.Heads); err != nil {
		return a, fmt.Errorf("anchor %d: heads: %w", a.ID, err)
	}
	a.BlockNumber = uint64(block) //nolint:gosec // the column is checked non-negative
	a.CreatedAt = a.CreatedAt.UTC()
	if minedAt.Valid {
		a.MinedAt = minedAt.Time.UTC()
	}
	return a, nil
}

func queryAnchors(ctx context.Context, q anchorQuerier, where string, args ...any) ([]LedgerAnchor, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+anchorColumns+` FROM ledger_anchors `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []LedgerAnchor
	for rows.Next() {
		a, err := scanAnchor(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Open returns the anchor not yet mined, if any (at most one exists: ledger_anchors_one_open).
func (s *LedgerAnchors) Open(ctx context.Context) (LedgerAnchor, bool, error) {
	found, err := queryAnchors(ctx, s.db.DB, `WHERE mined_at IS NULL`)
	if err != nil || len(found) == 0 {
		return LedgerAnchor{}, false, err
	}
	return found[0], true, nil
}

// Get returns one anchor by id.
func (s *LedgerAnchors) Get(ctx context.Context, id int64) (LedgerAnchor, bool, error) {
	found, err := queryAnchors(ctx, s.db.DB, `WHERE id = $1`, id)
	if err != nil || len(found) == 0 {
		return LedgerAnchor{}, false, err
	}
	return found[0], true, nil
}

// Mined lists the mined anchors, oldest first, at most limit.
func (s *LedgerAnchors) Mined(ctx context.Context, limit int) ([]LedgerAnchor, error) {
	return queryAnchors(ctx, s.db.DB, `WHERE mined_at IS NOT NULL ORDER BY id LIMIT $1`, limit)
}

// Prepare snapshots the heads of every hash chain and records them as a new, unsent anchor to
// be written on chain chainEnvironment (chainID). It records nothing (false) when no transfer
// was linked since the last anchor, or when another pass holds an open anchor already.
func (s *LedgerAnchors) Prepare(ctx context.Context, now time.Time, chainEnvironment string, chainID int64) (LedgerAnchor, bool, error) {
	tx, err := s.db.DB.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return LedgerAnchor{}, false, err
	}
	defer func() { _ = tx.Rollback() }()
	heads, err := anchorHeads(ctx, tx)
	if err != nil || len(heads) == 0 {
		return LedgerAnchor{}, false, err
	}
	last, err := queryAnchors(ctx, tx, `ORDER BY id DESC LIMIT 1`)
	if err != nil {
		return LedgerAnchor{}, false, err
	}
	if !advanced(heads, last) {
		return LedgerAnchor{}, false, nil
	}
	if err := sequenceRanges(ctx, tx, heads, last); err != nil {
		return LedgerAnchor{}, false, err
	}
	a, err := newAnchor(now, heads, chainEnvironment, chainID)
	if err != nil {
		return LedgerAnchor{}, false, err
	}
	headsJSON, err := json.Marshal(a.Heads)
	if err != nil {
		return LedgerAnchor{}, false, err
	}
	err = tx.QueryRowContext(ctx, `INSERT INTO ledger_anchors (created_at, root, heads, chain_environment, chain_id, payload)
VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT ((true)) WHERE mined_at IS NULL DO NOTHING RETURNING id`,
		now, a.Root, headsJSON, chainEnvironment, chainID, a.Payload).Scan(&a.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return LedgerAnchor{}, false, nil
	}
	if err != nil {
		return LedgerAnchor{}, false, err
	}
	return a, true, tx.Commit()
}

func newAnchor(now time.Time, heads []AnchorHead, chainEnvironment string, chainID int64) (LedgerAnchor, error) {
	leaves := make([]ledger.ChainHead, len(heads))
	for i, h := range heads {
		var err error
		if leaves[i], err = anchorChainHead(h); err != nil {
			return LedgerAnchor{}, err
		}
	}
	root := ledger.AnchorRoot(leaves)
	return LedgerAnchor{CreatedAt: now, Root: root, Heads: heads, ChainEnvironment: chainEnvironment,
		ChainID: chainID, Payload: ledger.AnchorPayload(root)}, nil
}

// anchorHeads reads every chain head in leaf order (environment, stripe).
func anchorHeads(ctx context.Context, q anchorQuerier) ([]AnchorHead, error) {
	rows, err := q.QueryContext(ctx, verifyChainsSQL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AnchorHead
	for rows.Next() {
		var h AnchorHead
		var hash []byte
		if err := rows.Scan(&h.Environment, &h.Stripe, &h.Position, &hash); err != nil {
			return nil, err
		}
		h.Head = hex.EncodeToString(hash)
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	chainHeads := make([]ledger.ChainHead, len(out))
	for i, h := range out {
		chainHeads[i] = ledger.ChainHead{Environment: h.Environment, Stripe: h.Stripe}
	}
	ledger.SortHeads(chainHeads) // verifyChainsSQL's order is the leaf order; assert it
	for i := range out {
		if out[i].Environment != chainHeads[i].Environment || out[i].Stripe != chainHeads[i].Stripe {
			panic("postgres: chain heads are not read in leaf order")
		}
	}
	return out, nil
}

// advanced reports whether any chain moved since the last anchor (or, with none, ever).
func advanced(heads []AnchorHead, last []LedgerAnchor) bool {
	before := map[string]int64{}
	if len(last) > 0 {
		for _, h := range last[0].Heads {
			before[chainKey(h.Environment, h.Stripe)] = h.Position
		}
	}
	for _, h := range heads {
		if h.Position > before[chainKey(h.Environment, h.Stripe)] {
			return true
		}
	}
	return false
}

func chainKey(env string, stripe int) string { return fmt.Sprintf("%s/%d", env, stripe) }

// sequenceRanges fills each head's range of positions and transfer sequences since last.
func sequenceRanges(ctx context.Context, q *sql.Tx, heads []AnchorHead, last []LedgerAnchor) error {
	before := map[string]int64{}
	if len(last) > 0 {
		for _, h := range last[0].Heads {
			before[chainKey(h.Environment, h.Stripe)] = h.Position
		}
	}
	for i := range heads {
		h := &heads[i]
		from := before[chainKey(h.Environment, h.Stripe)]
		h.FromPosition = from + 1
		if h.Position <= from {
			continue
		}
		var first, lastSeq sql.NullInt64
		// The links first (materialized): on Citus the chain is distributed by its bucket key,
		// not by the transfers' column, and Citus joins the two only through such a result.
		err := q.QueryRowContext(ctx, `WITH c AS MATERIALIZED (SELECT transfer_id FROM ledger_chain
    WHERE environment = $1 AND stripe = $2 AND position > $3 AND position <= $4)
SELECT min(t.sequence), max(t.sequence) FROM c JOIN ledger_transfers t ON t.id = c.transfer_id`,
			h.Environment, h.Stripe, from, h.Position).Scan(&first, &lastSeq)
		if err != nil {
			return err
		}
		h.FirstSequence, h.LastSequence = first.Int64, lastSeq.Int64
	}
	return nil
}

// RecordSent stores the transaction that carries an open anchor.
func (s *LedgerAnchors) RecordSent(ctx context.Context, id int64, txHash string) error {
	_, err := s.db.DB.ExecContext(ctx, `UPDATE ledger_anchors SET tx_hash = $2 WHERE id = $1 AND mined_at IS NULL`, id, txHash)
	return err
}

// ForgetSent clears an open anchor's transaction (it failed on chain), so the next pass sends
// the anchor again.
func (s *LedgerAnchors) ForgetSent(ctx context.Context, id int64) error {
	_, err := s.db.DB.ExecContext(ctx, `UPDATE ledger_anchors SET tx_hash = NULL WHERE id = $1 AND mined_at IS NULL`, id)
	return err
}

// RecordMined closes an anchor with the transaction that was mined (a fee-bumped replacement
// of the one sent has another hash) and its block.
func (s *LedgerAnchors) RecordMined(ctx context.Context, id int64, txHash string, block uint64, now time.Time) error {
	_, err := s.db.DB.ExecContext(ctx, `UPDATE ledger_anchors SET tx_hash = $2, block_number = $3, mined_at = $4
WHERE id = $1 AND mined_at IS NULL`, id, txHash, int64(block), now) //nolint:gosec // block numbers fit an int64
	return err
}

// SentPayload finds a relayer transaction already sent with payload from chainID (the newest):
// after a crash between the send and RecordSent, the pass finds it instead of anchoring twice.
func (s *LedgerAnchors) SentPayload(ctx context.Context, chainID int64, payload []byte) (string, bool, error) {
	var hash string
	err := s.db.DB.QueryRowContext(ctx, `SELECT tx_hash FROM relayer_transactions
WHERE chain_id = $1 AND data = $2 ORDER BY sent_at DESC LIMIT 1`, chainID, payload).Scan(&hash)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return hash, err == nil, err
}

// equalHex compares a recorded hex head with raw bytes.
func equalHex(recorded string, raw []byte) bool {
	b, err := hex.DecodeString(recorded)
	return err == nil && bytes.Equal(b, raw)
}
