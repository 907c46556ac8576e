// Package fake holds in-memory implementations of the ports that behave as the real adapters
// do where the application can tell: the ledger keeps balances and refuses overdrafts through
// ledger.Book, units of work commit or roll back (nested ones as savepoints), the payout
// provider and the SMS gateway are idempotent per key, and the chain keeps balances, blocks and
// logs in order. The contract suites in ports/portstest hold each fake to the same behaviour
// as its real adapter; use-case tests in app/ run on them, without a database.
//
// Every repository of ports.Tx is modelled, and each runs its portstest contract suite here and
// against Postgres (adapters/postgres), so a difference between them fails a test.
package fake

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corridorhq/corridor/core/ramp"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// Store is an in-memory ports.Store. Units of work run one at a time (a mutex stands in for
// the database's locks, so every schedule is serial); a unit that returns an error, or panics,
// leaves the state as it found it. An InTx inside another (the context carries the unit) is a
// savepoint: its failure rolls back only its own writes. The accessors tests assert with
// (Book, Events, Jobs, Card, Payment, …) read the committed state under the same mutex, so
// they are called between units of work, never inside one.
type Store struct {
	mu    sync.Mutex
	state *state
	// open is how many units of work (savepoints included) are running.
	open    atomic.Int32
	commits int
	// PingErr is what Ping answers, for tests of a store that is down.
	PingErr error
}

var _ ports.Store = (*Store)(nil)

// NewStore returns an empty store.
func NewStore() *Store { return &Store{state: newState()} }

type unitKey struct{}

// InTx runs fn as a unit of work (see Store).
func (s *Store) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) (err error) {
	if ctx.Value(unitKey{}) == s {
		return s.run(ctx, fn)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err = s.run(context.WithValue(ctx, unitKey{}, s), fn); err == nil {
		s.commits++
	}
	return err
}

// run is one unit or savepoint: a snapshot to roll back to, then fn.
func (s *Store) run(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) (err error) {
	saved := s.state.clone()
	s.open.Add(1)
	defer func() {
		s.open.Add(-1)
		if p := recover(); p != nil {
			s.state = saved
			panic(p)
		}
		if err != nil {
			s.state = saved
		}
	}()
	return fn(ctx, &Tx{s: s})
}

// InUnit reports whether a unit of work is running: tests use it to prove a use case makes
// no outside call inside one.
func (s *Store) InUnit() bool { return s.open.Load() > 0 }

// Ping answers PingErr (nil: the store is up).
func (s *Store) Ping(context.Context) error { return s.PingErr }

// Commits is how many outermost units of work committed.
func (s *Store) Commits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commits
}

// Read runs fn in a unit of work that always rolls back, so it changes nothing: for test
// assertions over the committed state.
func (s *Store) Read(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	var fnErr error
	err := s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if fnErr = fn(ctx, tx); fnErr != nil {
			return fnErr
		}
		return errReadOnly
	})
	if errors.Is(err, errReadOnly) {
		return nil
	}
	return err
}

// errReadOnly rolls a read back; Read turns it into success.
var errReadOnly = errors.New("fake: read only")

// state is everything a unit of work may change; clone is the snapshot a rollback restores.
type state struct {
	book       *ledger.Book
	cards      cardTables
	events     eventTables
	treasury   treasuryTables
	invoices   invoiceTables
	payments   table[safepay.Payment]
	holds      table[ports.PaymentHold]
	wallets    table[wallet.Wallet]
	drips      table[wallet.Drip]
	offramp    offrampTables
	recipients recipientTables
	claims     claimTables
	checkouts  checkoutTables
	chainIndex chainIndexTables
	twoFactor  twoFactorTables
	tenancy    tenantTables
	ramps      table[ramp.Ramp]
	policies   policyTables
	agents     agentTables
	jobs       []EnqueuedJob
}

func newState() *state {
	return &state{book: ledger.NewBook(), cards: newCardTables(), events: newEventTables(), treasury: newTreasuryTables(), invoices: newInvoiceTables(),
		payments: newTable[safepay.Payment](), holds: newTable[ports.PaymentHold](), wallets: newTable[wallet.Wallet](), drips: newTable[wallet.Drip](),
		offramp: newOfframpTables(), recipients: newRecipientTables(), claims: newClaimTables(), checkouts: newCheckoutTables(),
		chainIndex: newChainIndexTables(), twoFactor: newTwoFactorTables(), tenancy: newTenantTables(), ramps: newTable[ramp.Ramp](), policies: newPolicyTables(), agents: newAgentTables()}
}

func (st *state) clone() *state {
	return &state{book: st.book.Clone(), cards: st.cards.clone(), events: st.events.clone(), treasury: st.treasury.clone(), invoices: st.invoices.clone(),
		payments: st.payments.clone(), holds: st.holds.clone(), wallets: st.wallets.clone(), drips: st.drips.clone(),
		offramp: st.offramp.clone(), recipients: st.recipients.clone(), claims: st.claims.clone(), checkouts: st.checkouts.clone(),
		chainIndex: st.chainIndex.clone(), twoFactor: st.twoFactor.clone(), tenancy: st.tenancy.clone(), ramps: st.ramps.clone(), policies: st.policies.clone(), agents: st.agents.clone(), jobs: append([]EnqueuedJob(nil), st.jobs...)}
}

// table is rows by id, remembering insertion order (ids are time-ordered, so this is also id
// order for ids minted by core.NewID).
type table[T any] struct {
	rows  map[string]T
	order []string
}

func newTable[T any]() table[T] { return table[T]{rows: map[string]T{}} }

func (t table[T]) clone() table[T] {
	return table[T]{rows: copyOf(t.rows), order: append([]string(nil), t.order...)}
}

// copyOf returns a copy of m that can be written to (never nil).
func copyOf[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	maps.Copy(out, m)
	return out
}

// insert adds a row; a taken id is a programmer error in a fake (the database would refuse it).
func (t *table[T]) insert(id string, row T) error {
	if _, taken := t.rows[id]; taken {
		return fmt.Errorf("fake: duplicate id %s", id)
	}
	t.rows[id] = row
	t.order = append(t.order, id)
	return nil
}

// update replaces an existing row.
func (t *table[T]) update(id string, row T) error {
	if _, ok := t.rows[id]; !ok {
		return fmt.Errorf("fake: update of unknown id %s", id)
	}
	t.rows[id] = row
	return nil
}

// filter returns the rows keep accepts, in insertion order, newest first when newestFirst.
func (t table[T]) filter(keep func(T) bool, newestFirst bool) []T {
	var out []T
	for _, id := range t.order {
		if row, ok := t.rows[id]; ok && keep(row) {
			out = append(out, row)
		}
	}
	if newestFirst {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// page cuts a list as skip/take does, returning the page and the total.
func page[T any](rows []T, p ports.Page) ([]T, int) {
	total := len(rows)
	if p.Skip >= total {
		return nil, total
	}
	end := total
	if p.Take > 0 && p.Skip+p.Take < end {
		end = p.Skip + p.Take
	}
	return rows[p.Skip:end], total
}

// sortByTime orders rows oldest first by at, ties by insertion order.
func sortByTime[T any](rows []T, at func(T) time.Time) {
	sort.SliceStable(rows, func(i, j int) bool { return at(rows[i]).Before(at(rows[j])) })
}
