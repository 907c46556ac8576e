package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
)

// ChainCursor is where the ledger mirror's indexer stands on one environment's chain: every
// USDC Transfer log of the environment's wallets in blocks below NextBlock has been posted.
type ChainCursor struct {
	Environment core.Environment
	ChainID     int64
	NextBlock   uint64
	UpdatedAt   time.Time
}

// IndexedThrough is the last fully indexed block, or ok=false before the first one.
func (c ChainCursor) IndexedThrough() (block uint64, ok bool) {
	if c.NextBlock == 0 {
		return 0, false
	}
	return c.NextBlock - 1, true
}

// ChainWallet is a wallet as the indexer sees it: a party whose USDC movements it mirrors.
type ChainWallet struct {
	ID       string
	TenantID string
	Address  string // EIP-55, as stored on the wallet
}

// MaxChainWallets bounds the parties of one environment's chain that one indexer run loads.
const MaxChainWallets = 100_000

// ChainIndexRepo stores the indexer's cursor per (environment, chain) and lists its parties.
type ChainIndexRepo interface {
	// LockCursor returns the cursor with its row locked for the rest of the transaction,
	// creating it at block 0 when missing (concurrent creators see one row).
	LockCursor(ctx context.Context, env core.Environment, chainID int64, now time.Time) (ChainCursor, error)
	// SaveCursor writes a cursor LockCursor returned, moved forward.
	SaveCursor(ctx context.Context, c ChainCursor) error
	// FindCursor reads the cursor without locking it; ok=false when the indexer never ran.
	FindCursor(ctx context.Context, env core.Environment, chainID int64) (c ChainCursor, ok bool, err error)
	// ListChainWallets lists every wallet of env on chainID (all tenants, any status: a
	// predicted address receives funds before deployment), ordered by id, at most limit (which
	// may be MaxChainWallets+1, to detect an environment beyond the bound).
	ListChainWallets(ctx context.Context, env core.Environment, chainID int64, limit int) ([]ChainWallet, error)
	IndexedBlockRepo
	BackgroundFailureRepo
}

// Indexer names a chain indexer whose blocks are tracked for reorgs.
type Indexer string

// The chain indexers.
const (
	IndexerLedgerMirror Indexer = "LEDGER_MIRROR"
	IndexerClaimEscrow  Indexer = "CLAIM_ESCROW"
)

// IndexedBlock is a block an indexer committed: its hash as the indexer saw it, and what it
// applied from the block (transfer ids, event keys), for undoing it when a reorg drops it.
type IndexedBlock struct {
	Indexer     Indexer
	Environment core.Environment
	ChainID     int64
	Number      uint64
	Hash        string // 0x-prefixed lower-case hex
	Items       []string
	RecordedAt  time.Time
}

// MaxReorgDepth bounds how far back a reorg is searched for: deeper than this, the indexer
// stops and reports, since no confirmation depth an operator configures comes close to it.
const MaxReorgDepth = 1000

// IndexedBlockRepo stores the indexers' recorded blocks (a part of ChainIndexRepo).
type IndexedBlockRepo interface {
	// RecordIndexedBlock stores b, or adds its items to the block already recorded at its
	// number with the same hash.
	RecordIndexedBlock(ctx context.Context, b IndexedBlock) error
	// RecentIndexedBlocks lists the indexer's recorded blocks, newest first, at most limit.
	RecentIndexedBlocks(ctx context.Context, indexer Indexer, env core.Environment, chainID int64, limit int) ([]IndexedBlock, error)
	// DeleteIndexedBlocksFrom deletes and returns the recorded blocks numbered from and above.
	DeleteIndexedBlocksFrom(ctx context.Context, indexer Indexer, env core.Environment, chainID int64, from uint64) ([]IndexedBlock, error)
	// PruneIndexedBlocks deletes recorded blocks below below that applied nothing.
	PruneIndexedBlocks(ctx context.Context, indexer Indexer, env core.Environment, chainID int64, below uint64) error
}

// FailureStatus is where a failed background item stands.
type FailureStatus string

// Failure statuses.
const (
	FailureRetrying FailureStatus = "RETRYING"
	FailureDead     FailureStatus = "DEAD"
)

// BackgroundFailure is an item a background pass could not process.
type BackgroundFailure struct {
	Pass          string
	Item          string
	Environment   core.Environment // empty when the pass spans environments
	Status        FailureStatus
	Attempts      int
	LastError     string
	FirstFailedAt time.Time
	LastFailedAt  time.Time
}

// BackgroundFailureRepo records failed items of background passes (a part of ChainIndexRepo).
type BackgroundFailureRepo interface {
	// RecordFailure counts one more failed attempt of (pass, item) and returns the row; the
	// item turns DEAD once it reached maxAttempts.
	RecordFailure(ctx context.Context, pass, item string, env core.Environment, lastError string, maxAttempts int, at time.Time) (BackgroundFailure, error)
	// ClearFailure forgets (pass, item) after it succeeded.
	ClearFailure(ctx context.Context, pass, item string) error
	// ListFailures lists the failures of pass, newest first, at most limit.
	ListFailures(ctx context.Context, pass string, limit int) ([]BackgroundFailure, error)
}
