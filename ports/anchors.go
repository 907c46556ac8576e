package ports

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// AnchorHead is one chain head an anchor covers, as recorded in ledger_anchors.heads: the head
// at Position, and the transfers new since the previous anchor (positions FromPosition to
// Position, transfer sequences FirstSequence to LastSequence; both zero when none are new).
type AnchorHead struct {
	Environment   string `json:"environment"`
	Stripe        int    `json:"stripe"`
	Position      int64  `json:"position"`
	Head          string `json:"head"` // hex; empty for a chain with no transfer yet
	FromPosition  int64  `json:"fromPosition"`
	FirstSequence int64  `json:"firstSequence"`
	LastSequence  int64  `json:"lastSequence"`
}

// LedgerAnchor is one ledger anchor: the Merkle root of the hash-chain heads it covers, the
// payload that carries the root on chain, and the transaction once sent and mined.
type LedgerAnchor struct {
	ID               int64
	CreatedAt        time.Time
	Root             []byte
	Heads            []AnchorHead
	ChainEnvironment string
	ChainID          int64
	Payload          []byte
	TxHash           string // empty until sent
	BlockNumber      uint64 // zero until mined
	MinedAt          time.Time
}

// Mined reports whether the anchor's transaction is recorded as mined.
func (a LedgerAnchor) Mined() bool { return !a.MinedAt.IsZero() }

// LedgerAnchorStore is what the anchor pass needs of the anchor records. Each step is its own
// write, outside any unit of work, so a pass cut short anywhere leaves a state the next pass
// finishes from.
type LedgerAnchorStore interface {
	// Open returns the anchor not yet mined (at most one is), if any.
	Open(ctx context.Context) (LedgerAnchor, bool, error)
	// Prepare records a new anchor over the current heads for the chain chainID of
	// chainEnvironment; false when no transfer was linked since the last anchor.
	Prepare(ctx context.Context, now time.Time, chainEnvironment string, chainID int64) (LedgerAnchor, bool, error)
	// RecordSent stores the transaction that carries an open anchor.
	RecordSent(ctx context.Context, id int64, txHash string) error
	// ForgetSent clears an open anchor's transaction (it failed on chain) so it is sent again.
	ForgetSent(ctx context.Context, id int64) error
	// RecordMined closes an anchor with the transaction that was mined and its block.
	RecordMined(ctx context.Context, id int64, txHash string, block uint64, now time.Time) error
	// SentPayload finds the newest relayer transaction already sent with payload on chainID:
	// after a crash between the send and RecordSent the pass finds it instead of anchoring twice.
	SentPayload(ctx context.Context, chainID int64, payload []byte) (string, bool, error)
}

// AnchorChain is what the anchor pass needs of the chain that carries anchors: its id, a send
// of the anchor's zero-value transaction through the relayer, and receipts.
type AnchorChain interface {
	// ChainID is the EIP-155 chain id the relayer sends on.
	ChainID() int64
	// SendAnchor sends anchor anchorID's transaction with payload as its data.
	SendAnchor(ctx context.Context, anchorID int64, payload []byte) (common.Hash, error)
	// Receipt tells whether txHash is pending, succeeded or failed, and in which block.
	Receipt(ctx context.Context, txHash common.Hash) (Receipt, error)
}
