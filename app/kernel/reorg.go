package kernel

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// Reorg detection shared by the chain indexers (docs/chain.md, Confirmations and reorgs).

// ErrReorgTooDeep reports recorded blocks none of which is on the chain any more: a reorg deeper
// than the recorded history, or a chain reset under a kept database.
type ErrReorgTooDeep struct {
	Indexer ports.Indexer
	ChainID int64
	Oldest  uint64
}

func (e ErrReorgTooDeep) Error() string {
	return fmt.Sprintf("%s: none of the recorded blocks down to %d is on chain %d any more: a reorg deeper than the recorded history, or the chain was reset under a kept database (the dev chain needs `make clean-data`)",
		strings.ToLower(string(e.Indexer)), e.Oldest, e.ChainID)
}

// ForkPoint compares recorded blocks (newest first, as RecentIndexedBlocks lists them) with the
// chain: reorged=false when the newest is still on the chain (blocks below it are then too, as
// each block commits to its parent); else fork is the block after the newest recorded block
// still on the chain, the first one to index again.
func ForkPoint(ctx context.Context, c ports.Chain, indexer ports.Indexer, recent []ports.IndexedBlock) (fork uint64, reorged bool, err error) {
	for i, b := range recent {
		hash, found, err := c.BlockHash(ctx, b.Number)
		if err != nil {
			return 0, false, err
		}
		if found && strings.EqualFold(hash.Hex(), b.Hash) {
			if i == 0 {
				return 0, false, nil
			}
			return b.Number + 1, true, nil
		}
	}
	if len(recent) == 0 {
		return 0, false, nil
	}
	return 0, false, ErrReorgTooDeep{Indexer: indexer, ChainID: c.ChainID(), Oldest: recent[len(recent)-1].Number}
}

// RangeBlockHashes returns the hash of a range's last block and checks that every block a log
// was read from (logBlocks: number → hash the log carries) is still the chain's block at that
// height, so everything a range records comes from one chain. A mismatch is an error: the chain
// moved while the range was read, and the next run reads it again.
func RangeBlockHashes(ctx context.Context, c ports.Chain, to uint64, logBlocks map[uint64]common.Hash) (map[uint64]string, error) {
	out := make(map[uint64]string, len(logBlocks)+1)
	hash, found, err := c.BlockHash(ctx, to)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("chain %d: block %d left the chain while it was indexed; retrying later", c.ChainID(), to)
	}
	out[to] = strings.ToLower(hash.Hex())
	for _, n := range slices.Sorted(maps.Keys(logBlocks)) {
		if n == to {
			if !strings.EqualFold(logBlocks[n].Hex(), out[to]) {
				return nil, fmt.Errorf("chain %d: block %d changed while it was indexed; retrying later", c.ChainID(), n)
			}
			continue
		}
		hash, found, err := c.BlockHash(ctx, n)
		if err != nil {
			return nil, err
		}
		if !found || hash != logBlocks[n] {
			return nil, fmt.Errorf("chain %d: block %d changed while it was indexed; retrying later", c.ChainID(), n)
		}
		out[n] = strings.ToLower(hash.Hex())
	}
	return out, nil
}

// RecordIndexedBlocks records, in the committing transaction, the range's last block and every
// block something was applied from (items), and prunes item-less blocks deeper than
// MaxReorgDepth below it.
func RecordIndexedBlocks(ctx context.Context, tx IndexTx, indexer ports.Indexer, env core.Environment, chainID int64, to uint64, hashes map[uint64]string, items map[uint64][]string, now time.Time) error {
	for _, n := range slices.Sorted(maps.Keys(hashes)) {
		if n != to && len(items[n]) == 0 {
			continue
		}
		if err := tx.ChainIndex().RecordIndexedBlock(ctx, ports.IndexedBlock{Indexer: indexer, Environment: env, ChainID: chainID,
			Number: n, Hash: hashes[n], Items: items[n], RecordedAt: now}); err != nil {
			return err
		}
	}
	if to <= ports.MaxReorgDepth {
		return nil
	}
	return tx.ChainIndex().PruneIndexedBlocks(ctx, indexer, env, chainID, to-ports.MaxReorgDepth)
}
