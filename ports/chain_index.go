package ports

import (
	"context"
	"time"

	"corridor/core"
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
}
