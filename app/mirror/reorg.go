package mirror

import (
	"context"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// PassChainIndex names the ledger mirror's pass in background_failures.
const PassChainIndex = "chain.index"

// ReorgResult is what an indexer run undid after a reorg.
type ReorgResult struct {
	// ForkBlock is the first block indexed again: every block from it on was dropped.
	ForkBlock uint64
	// DroppedBlocks counts the recorded blocks dropped; Reversed the transfers reversed.
	DroppedBlocks, Reversed int
}

// ChainReorgReference is the ledger reference of the transfer reversing transferID after the
// block it was posted from left the chain.
func ChainReorgReference(transferID string) string { return "chain-reorg:" + transferID }

// undoReorg checks the recorded blocks against the chain and, after a reorg, reverses what the
// dropped blocks posted and moves the cursor back to the fork point. It returns nil when there
// was nothing to undo (or another run moved the cursor meanwhile: the next run checks again).
func (s *Service) undoReorg(ctx context.Context, c ports.Chain, env core.Environment, seen ports.ChainCursor) (*ReorgResult, error) {
	var recent []ports.IndexedBlock
	if err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		recent, err = tx.ChainIndex().RecentIndexedBlocks(ctx, ports.IndexerLedgerMirror, env, c.ChainID(), ports.MaxReorgDepth)
		return err
	}); err != nil {
		return nil, err
	}
	fork, reorged, err := kernel.ForkPoint(ctx, c, ports.IndexerLedgerMirror, recent)
	if err != nil || !reorged {
		return nil, err
	}
	var out *ReorgResult
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		out = nil
		now := s.clock.Now()
		cursor, err := tx.ChainIndex().LockCursor(ctx, env, c.ChainID(), now)
		if err != nil || cursor.NextBlock != seen.NextBlock {
			return err
		}
		dropped, err := tx.ChainIndex().DeleteIndexedBlocksFrom(ctx, ports.IndexerLedgerMirror, env, c.ChainID(), fork)
		if err != nil {
			return err
		}
		res := &ReorgResult{ForkBlock: fork, DroppedBlocks: len(dropped)}
		// Newest first, so each wallet account steps back through the balances it had.
		for i := len(dropped) - 1; i >= 0; i-- {
			for j := len(dropped[i].Items) - 1; j >= 0; j-- {
				if err := reverseChainTransfer(ctx, tx, env, dropped[i], dropped[i].Items[j], now); err != nil {
					return err
				}
				res.Reversed++
			}
		}
		cursor.NextBlock, cursor.UpdatedAt = fork, now
		out = res
		return tx.ChainIndex().SaveCursor(ctx, cursor)
	})
	if err != nil {
		return nil, err
	}
	if out != nil {
		s.log.Warn("ledger mirror: chain reorganised; transfers of dropped blocks reversed",
			"environment", env, "chainId", c.ChainID(), "forkBlock", out.ForkBlock, "droppedBlocks", out.DroppedBlocks, "reversed", out.Reversed)
	}
	return out, nil
}

// reverseChainTransfer posts the reversal of a transfer a dropped block had posted.
// The item names the transfer's home, which the store locks it in (an item of before names
// none, and the store reads the home by id).
func reverseChainTransfer(ctx context.Context, tx txView, env core.Environment, b ports.IndexedBlock, item string, now time.Time) error {
	transferID, home := ParseBlockItem(item)
	_, _, err := tx.Ledger().Post(ctx, now, ledger.TransferSpec{
		Reference: ChainReorgReference(transferID), Type: ledger.TypeReversal,
		Environment: env, ReversedID: transferID, TargetHome: home,
		Metadata: map[string]string{
			"source": "chain-reorg", "chainId": strconv.FormatInt(b.ChainID, 10),
			"droppedBlockNumber": strconv.FormatUint(b.Number, 10), "droppedBlockHash": b.Hash,
		},
	})
	return err
}

// blockHashes is kernel.RangeBlockHashes for a range's Transfer logs.
func blockHashes(ctx context.Context, c ports.Chain, to uint64, logs []ports.TransferLog) (map[uint64]string, error) {
	blocks := make(map[uint64]common.Hash, len(logs))
	for _, l := range logs {
		blocks[l.BlockNumber] = l.BlockHash
	}
	return kernel.RangeBlockHashes(ctx, c, to, blocks)
}

// recordBlocks records a committed range's blocks (kernel.RecordIndexedBlocks).
func recordBlocks(ctx context.Context, tx txView, indexer ports.Indexer, env core.Environment, chainID int64, to uint64, hashes map[uint64]string, items map[uint64][]string, now time.Time) error {
	return kernel.RecordIndexedBlocks(ctx, tx, indexer, env, chainID, to, hashes, items, now)
}

// skipLog records a Transfer log the mirror cannot post as DEAD in background_failures (a
// retry would fail the same way) and logs it; the range commits without it.
func (s *Service) skipLog(ctx context.Context, tx txView, env core.Environment, chainID int64, l ports.TransferLog, cause error, now time.Time) error {
	reference := ChainLogReference(chainID, l.TxHash, l.LogIndex)
	f, err := tx.ChainIndex().RecordFailure(ctx, PassChainIndex, reference, env, cause.Error(), 1, now)
	if err != nil {
		return err
	}
	s.log.Error("ledger mirror: skipped a Transfer log it cannot post; an operator must book it",
		"environment", env, "reference", reference, "blockNumber", l.BlockNumber, "error", cause.Error(), "attempts", f.Attempts)
	return nil
}
