package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/ports"
)

// RelayerTransactions records the relayer's transactions in relayer_transactions (ports.RelayerTxLog),
// shared by every replica: the fee-bump pass of any replica can replace a transaction another
// sent, and a receipt asked for a replaced hash finds the mined one.
type RelayerTransactions struct{ db *bun.DB }

// NewRelayerTransactions records in db.
func NewRelayerTransactions(db *bun.DB) *RelayerTransactions { return &RelayerTransactions{db: db} }

var _ ports.RelayerTxLog = (*RelayerTransactions)(nil)

func nonceParam(n uint64) (int64, error) {
	if n > math.MaxInt64 {
		return 0, fmt.Errorf("postgres: relayer nonce %d out of range", n)
	}
	return int64(n), nil
}

// RecordTx implements ports.RelayerTxLog.
func (r *RelayerTransactions) RecordTx(ctx context.Context, tx ports.RelayerTx) error {
	nonce, err := nonceParam(tx.Nonce)
	if err != nil {
		return err
	}
	if tx.Gas > math.MaxInt64 {
		return fmt.Errorf("postgres: gas %d out of range", tx.Gas)
	}
	data := tx.Data
	if data == nil {
		data = []byte{}
	}
	var to *string
	if tx.To != nil {
		s := tx.To.Hex()
		to = &s
	}
	_, err = r.db.ExecContext(ctx, `INSERT INTO relayer_transactions
		(chain_id, address, nonce, tx_hash, to_address, value_wei, data, gas, gas_fee_cap, gas_tip_cap, sent_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (chain_id, tx_hash) DO NOTHING`,
		tx.ChainID, tx.From, nonce, tx.Hash.Hex(), to, bigText(tx.Value), data, int64(tx.Gas), // #nosec G115 -- checked above
		bigText(tx.FeeCap), bigText(tx.TipCap), tx.SentAt.UTC())
	return err
}

func bigText(v *big.Int) string {
	if v == nil {
		return "0"
	}
	return v.String()
}

// Unsettled implements ports.RelayerTxLog.
func (r *RelayerTransactions) Unsettled(ctx context.Context, chainID int64, from string, limit int) ([]ports.RelayerTx, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT DISTINCT ON (nonce) nonce, tx_hash, to_address, value_wei::text, data, gas,
			gas_fee_cap::text, gas_tip_cap::text, sent_at
		FROM relayer_transactions WHERE chain_id = ? AND address = ? AND settled_at IS NULL
		ORDER BY nonce, sent_at DESC LIMIT ?`, chainID, from, limit)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	var out []ports.RelayerTx
	for rows.Next() {
		var (
			nonce, gas               int64
			hash, value, feeCap, tip string
			to                       sql.NullString
			data                     []byte
			sentAt                   time.Time
		)
		if err := rows.Scan(&nonce, &hash, &to, &value, &data, &gas, &feeCap, &tip, &sentAt); err != nil {
			return nil, err
		}
		tx := ports.RelayerTx{ChainID: chainID, From: from, Nonce: uint64(nonce), Hash: common.HexToHash(hash), // #nosec G115 -- CHECK (nonce >= 0)
			Data: data, Gas: uint64(gas), SentAt: sentAt} // #nosec G115 -- CHECK (gas > 0)
		if to.Valid {
			addr := common.HexToAddress(to.String)
			tx.To = &addr
		}
		var ok [3]bool
		tx.Value, ok[0] = new(big.Int).SetString(value, 10)
		tx.FeeCap, ok[1] = new(big.Int).SetString(feeCap, 10)
		tx.TipCap, ok[2] = new(big.Int).SetString(tip, 10)
		if !ok[0] || !ok[1] || !ok[2] {
			return nil, fmt.Errorf("postgres: relayer transaction %s: unreadable amounts", hash)
		}
		out = append(out, tx)
	}
	return out, rows.Err()
}

// Siblings implements ports.RelayerTxLog.
func (r *RelayerTransactions) Siblings(ctx context.Context, chainID int64, hash common.Hash) ([]common.Hash, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT s.tx_hash FROM relayer_transactions t
		JOIN relayer_transactions s ON s.chain_id = t.chain_id AND s.address = t.address AND s.nonce = t.nonce
		WHERE t.chain_id = ? AND t.tx_hash = ? ORDER BY s.sent_at`, chainID, hash.Hex())
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	var out []common.Hash
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out = append(out, common.HexToHash(h))
	}
	return out, rows.Err()
}

// Settle implements ports.RelayerTxLog.
func (r *RelayerTransactions) Settle(ctx context.Context, chainID int64, from string, nonce uint64) error {
	n, err := nonceParam(nonce)
	if err != nil {
		return err
	}
	_, err = r.db.ExecContext(ctx, `UPDATE relayer_transactions SET settled_at = now()
		WHERE chain_id = ? AND address = ? AND nonce = ? AND settled_at IS NULL`, chainID, from, n)
	return err
}

// WithNonceLock implements chain.NonceLocker: fn runs holding the key's relayer_nonces row lock
// (the one WithNonce takes), without taking a nonce.
func (n *RelayerNonces) WithNonceLock(ctx context.Context, chainID int64, from string, fn func() error) error {
	return n.db.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO relayer_nonces (chain_id, address, next_nonce) VALUES (?, ?, 0)
			ON CONFLICT (chain_id, address) DO NOTHING`, chainID, from); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM relayer_nonces WHERE chain_id = ? AND address = ? FOR UPDATE`,
			chainID, from); err != nil {
			return err
		}
		return fn()
	})
}
