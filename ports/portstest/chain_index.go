package portstest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// ChainIndexRepo is the contract of ports.ChainIndexRepo: the cursor is created at block 0
// (racing creators share one row) and saved forward, the chain's wallets list by id across
// tenants, recorded blocks merge items per hash, list newest first, delete from a number and
// prune the empty ones, and a background failure counts its attempts until DEAD.
func ChainIndexRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"the cursor starts at 0, racing creators share it; wallets list by id", chainIndexCursor},
		{"recorded blocks merge, list newest first, delete from a number, prune", chainIndexBlocks},
		{"a failure counts attempts until DEAD and clears", chainIndexFailures},
	})
}

// freshChain is a chain id no other subtest uses.
func freshChain(t *testing.T) int64 {
	b := []byte(suffix(t))
	n := int64(0)
	for _, c := range b[:6] {
		n = n*16 + int64(c%16)
	}
	return 1_000_000 + n
}

func chainIndexCursor(t *testing.T, s ports.Store) {
	chainID := freshChain(t)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		_, ok, err := tx.ChainIndex().FindCursor(ctx, core.EnvTest, chainID)
		if ok {
			t.Error("FindCursor found a cursor before the indexer ran")
		}
		return err
	})
	for _, err := range concurrently(s, 3, func(ctx context.Context, tx ports.Tx, _ int) error {
		c, err := tx.ChainIndex().LockCursor(ctx, core.EnvTest, chainID, ledgerNow())
		if err != nil {
			return err
		}
		c.NextBlock, c.UpdatedAt = c.NextBlock+5, ledgerNow()
		return tx.ChainIndex().SaveCursor(ctx, c)
	}) {
		noErr(t, "cursor unit", err)
	}
	tn := newTenant(t, s)
	w := newWallet(t, s, tn.ID, core.EnvTest)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		c, ok, err := tx.ChainIndex().FindCursor(ctx, core.EnvTest, chainID)
		if !ok || c.NextBlock != 15 {
			t.Errorf("cursor after three racing units = %+v, want block 15", c)
		}
		ws, err2 := tx.ChainIndex().ListChainWallets(ctx, core.EnvTest, w.ChainID, ports.MaxChainWallets)
		found := slices.ContainsFunc(ws, func(x ports.ChainWallet) bool { return x.ID == w.ID && x.TenantID == tn.ID && x.Address == w.Address })
		if !found || !slices.IsSortedFunc(ws, func(a, b ports.ChainWallet) int { return strings.Compare(a.ID, b.ID) }) {
			t.Errorf("ListChainWallets does not list the wallet, in id order")
		}
		return firstErr(err, err2)
	})
}

func block(chainID int64, n uint64, hash string, items ...string) ports.IndexedBlock {
	return ports.IndexedBlock{Indexer: ports.IndexerLedgerMirror, Environment: core.EnvTest, ChainID: chainID, Number: n, Hash: hash,
		Items: items, RecordedAt: ledgerNow()}
}

func chainIndexBlocks(t *testing.T, s ports.Store) {
	chainID := freshChain(t)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		r := tx.ChainIndex()
		for _, b := range []ports.IndexedBlock{block(chainID, 1, hash(1)), block(chainID, 2, hash(2), "trf_a"), block(chainID, 2, hash(2), "trf_b"),
			block(chainID, 3, hash(3), "trf_c")} {
			noErr(t, "RecordIndexedBlock", r.RecordIndexedBlock(ctx, b))
		}
		recent, err := r.RecentIndexedBlocks(ctx, ports.IndexerLedgerMirror, core.EnvTest, chainID, 10)
		if len(recent) != 3 || recent[0].Number != 3 || len(recent[1].Items) != 2 {
			t.Errorf("RecentIndexedBlocks = %+v, want 3 newest first, block 2 with both items", recent)
		}
		gone, err2 := r.DeleteIndexedBlocksFrom(ctx, ports.IndexerLedgerMirror, core.EnvTest, chainID, 3)
		if len(gone) != 1 || gone[0].Number != 3 || len(gone[0].Items) != 1 {
			t.Errorf("DeleteIndexedBlocksFrom(3) = %+v", gone)
		}
		noErr(t, "PruneIndexedBlocks", r.PruneIndexedBlocks(ctx, ports.IndexerLedgerMirror, core.EnvTest, chainID, 10))
		left, err3 := r.RecentIndexedBlocks(ctx, ports.IndexerLedgerMirror, core.EnvTest, chainID, 10)
		if len(left) != 1 || left[0].Number != 2 {
			t.Errorf("after the prune = %+v, want only block 2 (it applied something)", left)
		}
		if other, _ := r.RecentIndexedBlocks(ctx, ports.IndexerClaimEscrow, core.EnvTest, chainID, 10); len(other) != 0 {
			t.Errorf("another indexer sees %d blocks", len(other))
		}
		return firstErr(err, err2, err3)
	})
}

func chainIndexFailures(t *testing.T, s ports.Store) {
	// The database admits the service's passes only; items of this subtest's own keep it apart.
	sfx := suffix(t)
	sweeper, item, other := "claim.expiry", "contract-"+sfx+"-1", "contract-"+sfx+"-2"
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		r := tx.ChainIndex()
		var last ports.BackgroundFailure
		for range 3 {
			var err error
			last, err = r.RecordFailure(ctx, sweeper, item, core.EnvTest, "boom", 3, ledgerNow())
			noErr(t, "RecordFailure", err)
		}
		if last.Attempts != 3 || last.Status != ports.FailureDead || last.LastError != "boom" {
			t.Errorf("after 3 of 3 attempts = %+v, want DEAD", last)
		}
		_, err := r.RecordFailure(ctx, sweeper, other, core.EnvTest, "once", 3, ledgerNow())
		list, err2 := r.ListFailures(ctx, sweeper, 1000)
		if list = mine(list, sfx); len(list) != 2 {
			t.Errorf("ListFailures = %+v, want 2", list)
		}
		noErr(t, "ClearFailure", r.ClearFailure(ctx, sweeper, item))
		list, err3 := r.ListFailures(ctx, sweeper, 1000)
		if list = mine(list, sfx); len(list) != 1 || list[0].Item != other || list[0].Status != ports.FailureRetrying {
			t.Errorf("after ClearFailure = %+v", list)
		}
		return firstErr(err, err2, err3)
	})
}

// mine keeps the failures of this subtest's items.
func mine(list []ports.BackgroundFailure, sfx string) []ports.BackgroundFailure {
	return slices.DeleteFunc(list, func(f ports.BackgroundFailure) bool { return !strings.Contains(f.Item, sfx) })
}

// hash is a block hash of 32 bytes ending in n.
func hash(n byte) string { return fmt.Sprintf("0x%064x", n) }
