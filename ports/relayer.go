package ports

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// RelayerTx is one transaction the relayer signed and the node accepted: enough to send the same
// payload again with the same nonce and higher fees.
type RelayerTx struct {
	ChainID int64
	From    string
	Nonce   uint64
	Hash    common.Hash
	To      *common.Address
	Value   *big.Int
	Data    []byte
	Gas     uint64
	FeeCap  *big.Int
	TipCap  *big.Int
	SentAt  time.Time
}

// RelayerTxLog records the relayer's transactions. A nonce is the identity of a relayed transaction:
// a fee bump sends the same payload under the same nonce, and whichever of the nonce's
// transactions is mined is the one that counts.
type RelayerTxLog interface {
	// RecordTx stores one sent transaction.
	RecordTx(ctx context.Context, tx RelayerTx) error
	// Unsettled lists, per nonce of from not yet settled, the latest transaction sent,
	// lowest nonce first, at most limit.
	Unsettled(ctx context.Context, chainID int64, from string, limit int) ([]RelayerTx, error)
	// Siblings lists every recorded transaction hash sharing hash's nonce (hash included),
	// or nothing when hash is not recorded.
	Siblings(ctx context.Context, chainID int64, hash common.Hash) ([]common.Hash, error)
	// Settle marks from's nonce done: one of its transactions is mined (or the nonce was used).
	Settle(ctx context.Context, chainID int64, from string, nonce uint64) error
}
