package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/uptrace/bun"
)

// RelayerNonces keeps the relayer's next nonce per chain and key in relayer_nonces and hands it
// out under the row's lock (chain.NonceKeeper), so every replica sending with one key takes
// nonces one at a time. The lock is held while the transaction is signed and sent: that send is
// bounded by CHAIN_RPC_TIMEOUT, and idle_in_transaction_session_timeout ends a session that
// would hold it longer.
type RelayerNonces struct{ db *bun.DB }

// NewRelayerNonces keeps nonces in db.
func NewRelayerNonces(db *bun.DB) *RelayerNonces { return &RelayerNonces{db: db} }

// WithNonce implements chain.NonceKeeper.
func (n *RelayerNonces) WithNonce(ctx context.Context, chainID int64, from string, pending uint64, send func(nonce uint64) (bool, error)) error {
	if pending > math.MaxInt64-1 {
		return fmt.Errorf("postgres: relayer nonce %d out of range", pending)
	}
	return n.db.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO relayer_nonces (chain_id, address, next_nonce) VALUES (?, ?, 0)
			ON CONFLICT (chain_id, address) DO NOTHING`, chainID, from); err != nil {
			return err
		}
		var recorded int64
		if err := tx.QueryRowContext(ctx, `SELECT next_nonce FROM relayer_nonces WHERE chain_id = ? AND address = ? FOR UPDATE`,
			chainID, from).Scan(&recorded); err != nil {
			return err
		}
		nonce := max(uint64(recorded), pending) // #nosec G115 -- next_nonce is checked non-negative
		used, err := send(nonce)
		if err != nil || !used {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE relayer_nonces SET next_nonce = ? WHERE chain_id = ? AND address = ?`,
			int64(nonce+1), chainID, from) // #nosec G115 -- bounded above
		return err
	})
}
