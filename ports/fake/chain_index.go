package fake

import (
	"context"
	"sort"
	"strconv"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// chainIndexTables hold the ledger mirror's cursors, the indexers' recorded blocks and the
// background passes' failures.
type chainIndexTables struct {
	cursors  map[string]ports.ChainCursor       // environment|chain
	blocks   map[string]ports.IndexedBlock      // indexer|environment|chain|number
	failures map[string]ports.BackgroundFailure // pass|item
}

func newChainIndexTables() chainIndexTables {
	return chainIndexTables{cursors: map[string]ports.ChainCursor{}, blocks: map[string]ports.IndexedBlock{},
		failures: map[string]ports.BackgroundFailure{}}
}

func (t chainIndexTables) clone() chainIndexTables {
	out := newChainIndexTables()
	out.cursors, out.failures = copyOf(t.cursors), copyOf(t.failures)
	for k, v := range t.blocks {
		v.Items = append([]string(nil), v.Items...)
		out.blocks[k] = v
	}
	return out
}

type chainIndexRepo struct{ s *Store }

var _ ports.ChainIndexRepo = chainIndexRepo{}

func (r chainIndexRepo) t() *chainIndexTables { return &r.s.state.chainIndex }

func cursorKey(env core.Environment, chainID int64) string {
	return string(env) + "|" + strconv.FormatInt(chainID, 10)
}

func (r chainIndexRepo) LockCursor(_ context.Context, env core.Environment, chainID int64, now time.Time) (ports.ChainCursor, error) {
	key := cursorKey(env, chainID)
	c, ok := r.t().cursors[key]
	if !ok {
		c = ports.ChainCursor{Environment: env, ChainID: chainID, UpdatedAt: now}
		r.t().cursors[key] = c
	}
	return c, nil
}

func (r chainIndexRepo) SaveCursor(_ context.Context, c ports.ChainCursor) error {
	r.t().cursors[cursorKey(c.Environment, c.ChainID)] = c
	return nil
}

func (r chainIndexRepo) FindCursor(_ context.Context, env core.Environment, chainID int64) (ports.ChainCursor, bool, error) {
	c, ok := r.t().cursors[cursorKey(env, chainID)]
	return c, ok, nil
}

// ListChainWallets lists every wallet of env on chainID, by id, at most limit.
func (r chainIndexRepo) ListChainWallets(_ context.Context, env core.Environment, chainID int64, limit int) ([]ports.ChainWallet, error) {
	if limit <= 0 || limit > ports.MaxChainWallets+1 {
		limit = ports.MaxChainWallets + 1
	}
	rows := r.s.state.wallets.filter(func(w wallet.Wallet) bool { return w.Environment == env && w.ChainID == chainID }, false)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	rows, _ = page(rows, ports.Page{Take: limit})
	out := make([]ports.ChainWallet, len(rows))
	for i, w := range rows {
		out[i] = ports.ChainWallet{ID: w.ID, TenantID: w.TenantID, Address: w.Address}
	}
	return out, nil
}

func blockKey(indexer ports.Indexer, env core.Environment, chainID int64, number uint64) string {
	return string(indexer) + "|" + cursorKey(env, chainID) + "|" + strconv.FormatUint(number, 10)
}

// RecordIndexedBlock stores b, or merges its items (each once, sorted) into the block recorded
// at its number.
func (r chainIndexRepo) RecordIndexedBlock(_ context.Context, b ports.IndexedBlock) error {
	key := blockKey(b.Indexer, b.Environment, b.ChainID, b.Number)
	if old, ok := r.t().blocks[key]; ok {
		set := map[string]bool{}
		for _, it := range append(append([]string(nil), old.Items...), b.Items...) {
			set[it] = true
		}
		old.Items = old.Items[:0:0]
		for it := range set {
			old.Items = append(old.Items, it)
		}
		sort.Strings(old.Items)
		r.t().blocks[key] = old
		return nil
	}
	if b.Items == nil {
		b.Items = []string{}
	}
	b.Items = append([]string{}, b.Items...)
	r.t().blocks[key] = b
	return nil
}

func (r chainIndexRepo) indexed(indexer ports.Indexer, env core.Environment, chainID int64, keep func(uint64) bool) []ports.IndexedBlock {
	var out []ports.IndexedBlock
	for _, b := range r.t().blocks {
		if b.Indexer == indexer && b.Environment == env && b.ChainID == chainID && keep(b.Number) {
			out = append(out, b)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out
}

func (r chainIndexRepo) RecentIndexedBlocks(_ context.Context, indexer ports.Indexer, env core.Environment, chainID int64, limit int) ([]ports.IndexedBlock, error) {
	if limit <= 0 || limit > ports.MaxReorgDepth {
		limit = ports.MaxReorgDepth
	}
	rows := r.indexed(indexer, env, chainID, func(uint64) bool { return true })
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	out, _ := page(rows, ports.Page{Take: limit})
	return out, nil
}

func (r chainIndexRepo) DeleteIndexedBlocksFrom(_ context.Context, indexer ports.Indexer, env core.Environment, chainID int64, from uint64) ([]ports.IndexedBlock, error) {
	rows := r.indexed(indexer, env, chainID, func(n uint64) bool { return n >= from })
	for _, b := range rows {
		delete(r.t().blocks, blockKey(indexer, env, chainID, b.Number))
	}
	return rows, nil
}

func (r chainIndexRepo) PruneIndexedBlocks(_ context.Context, indexer ports.Indexer, env core.Environment, chainID int64, below uint64) error {
	for _, b := range r.indexed(indexer, env, chainID, func(n uint64) bool { return n < below }) {
		if len(b.Items) == 0 {
			delete(r.t().blocks, blockKey(indexer, env, chainID, b.Number))
		}
	}
	return nil
}

// RecordFailure counts a failed attempt; the item is DEAD once it reached maxAttempts.
func (r chainIndexRepo) RecordFailure(_ context.Context, pass, item string, env core.Environment, lastError string, maxAttempts int, at time.Time) (ports.BackgroundFailure, error) {
	key := pass + "|" + item
	f, ok := r.t().failures[key]
	if !ok {
		f = ports.BackgroundFailure{Pass: pass, Item: item, Environment: env, FirstFailedAt: at}
	}
	f.Attempts++
	f.LastError, f.LastFailedAt = lastError, at
	f.Status = ports.FailureRetrying
	if f.Attempts >= maxAttempts {
		f.Status = ports.FailureDead
	}
	r.t().failures[key] = f
	return f, nil
}

func (r chainIndexRepo) ClearFailure(_ context.Context, pass, item string) error {
	delete(r.t().failures, pass+"|"+item)
	return nil
}

func (r chainIndexRepo) ListFailures(_ context.Context, pass string, limit int) ([]ports.BackgroundFailure, error) {
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	var out []ports.BackgroundFailure
	for _, f := range r.t().failures {
		if f.Pass == pass {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].LastFailedAt.Equal(out[j].LastFailedAt) {
			return out[i].LastFailedAt.After(out[j].LastFailedAt)
		}
		return out[i].Item < out[j].Item
	})
	out, _ = page(out, ports.Page{Take: limit})
	return out, nil
}
