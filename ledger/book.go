package ledger

import (
	"maps"
	"sort"
	"sync"
	"time"

	"github.com/corridorhq/corridor/core"
)

// Book is the in-memory reference ledger: it runs, step by step, the algorithm the package
// documentation prescribes for a store, through the same pure functions. Tests and in-memory
// fakes of the ledger port use it; the Postgres store must behave the same, and a shared
// contract suite can hold both to it. A mutex stands in for the database's row locks.
type Book struct {
	mu            sync.Mutex
	accounts      map[string]Account
	accountByRef  map[accountKey]string
	balances      map[string]Balance
	transfers     map[string]StoredTransfer
	transferByRef map[transferKey]string
	chain         []ChainEntry
}

type accountKey struct {
	env       core.Environment
	asset     string
	reference string
}

type transferKey struct {
	env       core.Environment
	reference string
}

// NewBook returns an empty ledger.
func NewBook() *Book {
	return &Book{
		accounts:      map[string]Account{},
		accountByRef:  map[accountKey]string{},
		balances:      map[string]Balance{},
		transfers:     map[string]StoredTransfer{},
		transferByRef: map[transferKey]string{},
	}
}

// OpenAccount creates an account with a zero balance, or returns the existing account of the
// same (environment, asset, reference) when it has the same spec, so opening is idempotent.
// The same reference with another spec is LEDGER_REFERENCE_CONFLICT.
func (b *Book) OpenAccount(id string, spec AccountSpec, now time.Time) (Account, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := accountKey{spec.Environment, spec.Asset, spec.Reference}
	if existingID, ok := b.accountByRef[key]; ok {
		existing := b.accounts[existingID]
		if existing.Spec() != spec {
			return Account{}, core.E(core.CodeLedgerReferenceConflict, "account %s already exists with another spec", spec.Reference)
		}
		return existing, nil
	}
	a, err := NewAccount(id, spec, now)
	if err != nil {
		return Account{}, err
	}
	if _, taken := b.accounts[id]; taken {
		return Account{}, core.E(core.CodeInternal, "ledger: account id %s is already used", id)
	}
	b.accounts[id] = a
	b.accountByRef[key] = id
	b.balances[id] = Balance{}
	return a, nil
}

// Post records a transfer, or replays the one already recorded under its reference (replayed
// is then true). A refusal changes nothing.
func (b *Book) Post(spec TransferSpec, transferID string, now time.Time) (t Transfer, replayed bool, err error) {
	if err := spec.Validate(); err != nil {
		return Transfer{}, false, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if storedID, ok := b.transferByRef[transferKey{spec.Environment, spec.Reference}]; ok {
		t, err := ReplayOrConflict(spec, b.transfers[storedID].Transfer)
		return t, err == nil, err
	}
	in := ApplyInput{Spec: spec, TransferID: transferID, Now: now, Accounts: map[string]Account{}, Balances: map[string]Balance{}}
	var targetTransfer *Transfer
	if spec.Type.resolvesTarget() {
		if stored, ok := b.transfers[spec.TargetID()]; ok {
			in.Target = &stored
			targetTransfer = &stored.Transfer
		}
	}
	for _, id := range InvolvedAccountIDs(spec, targetTransfer) {
		if a, ok := b.accounts[id]; ok {
			in.Accounts[id] = a
			in.Balances[id] = b.balances[id]
		}
	}
	res, err := Apply(in)
	if err != nil {
		return Transfer{}, false, err
	}
	if _, taken := b.transfers[transferID]; taken {
		return Transfer{}, false, core.E(core.CodeInternal, "ledger: transfer id %s is already used", transferID)
	}
	b.commit(res)
	return res.Transfer, false, nil
}

// commit writes an accepted result, as the store's inserts and updates do.
func (b *Book) commit(res Result) {
	t := res.Transfer
	b.transfers[t.ID] = StoredTransfer{Transfer: t, State: res.State}
	b.transferByRef[transferKey{t.Environment, t.Reference}] = t.ID
	for id, balance := range res.Balances {
		b.balances[id] = balance
	}
	if res.Target != nil {
		b.transfers[res.Target.Transfer.ID] = *res.Target
	}
	var prev []byte
	if n := len(b.chain); n > 0 {
		prev = b.chain[n-1].Hash
	}
	b.chain = append(b.chain, ChainEntry{Transfer: t, Hash: ChainHash(prev, t)})
}

// Account returns an account by id.
func (b *Book) Account(id string) (Account, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.accounts[id]
	if !ok {
		return Account{}, core.NotFound(core.CodeAccountNotFound, "account "+id)
	}
	return a, nil
}

// FindAccount returns the account of a reference in one environment and asset.
func (b *Book) FindAccount(env core.Environment, asset, reference string) (Account, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id, ok := b.accountByRef[accountKey{env, asset, reference}]
	if !ok {
		return Account{}, core.NotFound(core.CodeAccountNotFound, "account "+reference)
	}
	return b.accounts[id], nil
}

// Balance returns an account's current balance.
func (b *Book) Balance(accountID string) (Balance, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	balance, ok := b.balances[accountID]
	if !ok {
		return Balance{}, core.NotFound(core.CodeAccountNotFound, "account "+accountID)
	}
	return balance, nil
}

// Transfer returns a recorded transfer with its current state.
func (b *Book) Transfer(id string) (StoredTransfer, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	stored, ok := b.transfers[id]
	if !ok {
		return StoredTransfer{}, core.NotFound(core.CodeTransferNotFound, "transfer "+id)
	}
	return stored, nil
}

// Balances returns a copy of every balance, keyed by account id.
func (b *Book) Balances() map[string]Balance {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]Balance, len(b.balances))
	for id, balance := range b.balances {
		out[id] = balance
	}
	return out
}

// Accounts returns every account, sorted by id.
func (b *Book) Accounts() []Account {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Account, 0, len(b.accounts))
	for _, a := range b.accounts {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Chain returns the recorded transfers with their hashes, in sequence order.
func (b *Book) Chain() []ChainEntry {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]ChainEntry(nil), b.chain...)
}

// History returns the recorded transfers in sequence order.
func (b *Book) History() []Transfer {
	chain := b.Chain()
	out := make([]Transfer, len(chain))
	for i, e := range chain {
		out[i] = e.Transfer
	}
	return out
}

// AuditInput returns a snapshot of the whole book for Audit.
func (b *Book) AuditInput() AuditInput {
	b.mu.Lock()
	defer b.mu.Unlock()
	in := AuditInput{Balances: map[string]Balance{}, States: map[string]TransferState{}}
	for id, a := range b.accounts {
		in.Accounts = append(in.Accounts, a)
		in.Balances[id] = b.balances[id]
	}
	sort.Slice(in.Accounts, func(i, j int) bool { return in.Accounts[i].ID < in.Accounts[j].ID })
	for id, stored := range b.transfers {
		in.States[id] = stored.State
	}
	in.Chain = append([]ChainEntry(nil), b.chain...)
	return in
}

// Clone returns an independent copy of the book: an in-memory unit of work takes one before it
// runs and keeps it to roll back to, as a database transaction discards its writes.
func (b *Book) Clone() *Book {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := NewBook()
	maps.Copy(out.accounts, b.accounts)
	maps.Copy(out.accountByRef, b.accountByRef)
	maps.Copy(out.balances, b.balances)
	maps.Copy(out.transfers, b.transfers)
	maps.Copy(out.transferByRef, b.transferByRef)
	out.chain = append([]ChainEntry(nil), b.chain...)
	return out
}
