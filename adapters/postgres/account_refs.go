package postgres

import (
	"context"
	"sync"

	"github.com/corridorhq/corridor/ledger"
)

// Accounts by reference, remembered once committed. OpenAccounts is on every money path (a
// deposit opens the sandbox pool and the tenant's balance account), and a read of
// ledger_accounts inside a pipeline batch is a round trip on the lane every unit behind it
// waits for. An account never changes once opened and is never deleted, so an account this
// process knows to be committed can be answered from memory.
//
// Knowing it committed is the point: a unit of work may read an account that an earlier
// statement of the same transaction inserted (an earlier unit of its batch, an enclosing unit,
// a savepoint later rolled back), and such a row vanishes if that work is rolled back. So an
// account a statement found is only noted in the scope of the unit of work that ran it
// (accountFinds); a nested unit's notes go to its parent when it ends well and are dropped when
// it is rolled back to its savepoint; a batch's units' notes go to the batch when the unit is
// kept; and the notes of a transaction are published to the store's cache only once its COMMIT
// has returned. A row found by a statement that was not rolled back was either committed
// already or written by this transaction, and in both cases it is committed once this
// transaction is.

// refCache is one store's committed accounts by (environment, asset, reference). It is bounded:
// when full, it starts over.
type refCache struct {
	mu sync.RWMutex
	m  map[accountKey]ledger.Account
}

const maxCachedRefs = 100_000

func newRefCache() *refCache { return &refCache{m: map[accountKey]ledger.Account{}} }

func (c *refCache) get(k accountKey) (ledger.Account, bool) {
	if c == nil {
		return ledger.Account{}, false
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	a, ok := c.m[k]
	return a, ok
}

// publish remembers accounts a committed transaction found.
func (c *refCache) publish(as []ledger.Account) {
	if c == nil || len(as) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, a := range as {
		if len(c.m) >= maxCachedRefs {
			c.m = make(map[accountKey]ledger.Account, 1024)
		}
		c.m[accountKey{a.Environment, a.Asset, a.Reference}] = a
	}
}

// accountFinds are the accounts the statements of one unit of work (or savepoint) found.
type accountFinds struct {
	cache *refCache // where they go once committed; nil: nowhere
	list  []ledger.Account
}

type findsKey struct{}

// findsOf is the scope of the unit of work ctx belongs to (nil outside one).
func findsOf(ctx context.Context) *accountFinds {
	f, _ := ctx.Value(findsKey{}).(*accountFinds)
	return f
}

// withFinds opens a new scope in ctx for a unit of work whose commit publishes into cache.
func withFinds(ctx context.Context, cache *refCache) (context.Context, *accountFinds) {
	f := &accountFinds{cache: cache}
	return context.WithValue(ctx, findsKey{}, f), f
}

// childFinds opens the scope of a nested unit of work.
func childFinds(ctx context.Context) (context.Context, *accountFinds) {
	var cache *refCache
	if parent := findsOf(ctx); parent != nil {
		cache = parent.cache
	}
	return withFinds(ctx, cache)
}

func (f *accountFinds) note(a ledger.Account) {
	if f != nil && f.cache != nil {
		f.list = append(f.list, a)
	}
}

// keep hands a child's notes to f (the child ended well).
func (f *accountFinds) keep(child *accountFinds) {
	if f != nil && child != nil {
		f.list = append(f.list, child.list...)
	}
}

// cached answers specs from the cache when it holds every one of them.
func (f *accountFinds) cached(specs []ledgerAccountSpec) (map[accountKey]ledger.Account, bool) {
	if f == nil || f.cache == nil {
		return nil, false
	}
	out := make(map[accountKey]ledger.Account, len(specs))
	for _, s := range specs {
		k := accountKeyOf(s)
		a, ok := f.cache.get(k)
		if !ok {
			return nil, false
		}
		out[k] = a
	}
	return out, true
}

type ledgerAccountSpec = ledger.AccountSpec
