package fake

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// ledgerRepo is ports.LedgerRepo over the store's ledger.Book: the reference ledger, running
// the same pure rules (ledger.Apply) the Postgres store runs, so balances, holds, idempotent
// references and refusals behave alike.
type ledgerRepo struct{ s *Store }

var _ ports.LedgerRepo = ledgerRepo{}

func (r ledgerRepo) OpenAccounts(_ context.Context, now time.Time, specs ...ledger.AccountSpec) ([]ledger.Account, error) {
	out := make([]ledger.Account, len(specs))
	for i, spec := range specs {
		a, err := r.s.state.book.OpenAccount(core.NewID(core.PrefixAccount), spec, now)
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

func (r ledgerRepo) FindAccountByReference(_ context.Context, env core.Environment, asset, home, reference string) (ledger.Account, error) {
	a, err := r.s.state.book.FindAccount(env, asset, reference)
	if err == nil && a.Home() != home {
		return ledger.Account{}, core.NotFound(core.CodeAccountNotFound, "account "+reference)
	}
	return a, err
}

// Post decides at now, or at the latest transfer time of the accounts involved when that is
// later, as the Postgres store does: an account's history is ordered in time.
func (r ledgerRepo) Post(_ context.Context, now time.Time, spec ledger.TransferSpec) (ledger.Transfer, bool, error) {
	now = now.UTC().Truncate(time.Microsecond)
	book := r.s.state.book
	for _, t := range book.History() {
		if t.CreatedAt.After(now) && touches(t, spec) {
			now = t.CreatedAt
		}
	}
	if spec.TargetHome != "" {
		if target, err := book.Transfer(spec.TargetID()); err == nil && r.homeOf(target.Transfer) != spec.TargetHome {
			// The PostgreSQL store looks the target up in the home the caller named only.
			return ledger.Transfer{}, false, core.NotFound(core.CodeTransferNotFound, "transfer "+spec.TargetID())
		}
	}
	return book.Post(spec, core.NewID(core.PrefixTransfer), now)
}

// touches reports whether a recorded transfer shares an account with spec or is its target.
func touches(t ledger.Transfer, spec ledger.TransferSpec) bool {
	if t.ID == spec.TargetID() {
		return true
	}
	for _, p := range t.Postings {
		for _, q := range spec.Postings {
			if p.AccountID == q.AccountID {
				return true
			}
		}
	}
	return false
}

func (r ledgerRepo) Transfer(_ context.Context, env core.Environment, home, id string) (ledger.StoredTransfer, error) {
	stored, err := r.s.state.book.Transfer(id)
	if err == nil && (stored.Transfer.Environment != env || r.homeOf(stored.Transfer) != home) {
		return ledger.StoredTransfer{}, core.NotFound(core.CodeTransferNotFound, "transfer "+id)
	}
	return stored, err
}

func (r ledgerRepo) TransferByReference(_ context.Context, env core.Environment, home, reference string) (ledger.Transfer, error) {
	for _, t := range r.s.state.book.History() {
		if t.Environment == env && t.Reference == reference && r.homeOf(t) == home {
			return t, nil
		}
	}
	return ledger.Transfer{}, core.NotFound(core.CodeTransferNotFound, "transfer "+reference)
}

// homeOf is t's home (ledger.HomeOf), as the PostgreSQL store keeps it with the row.
func (r ledgerRepo) homeOf(t ledger.Transfer) string {
	accounts := make(map[string]ledger.Account, len(t.Postings))
	for _, p := range t.Postings {
		if a, err := r.s.state.book.Account(p.AccountID); err == nil {
			accounts[a.ID] = a
		}
	}
	return ledger.HomeOf(t, accounts)
}

func (r ledgerRepo) Balances(_ context.Context, accountIDs []string) (map[string]ledger.Balance, error) {
	out := make(map[string]ledger.Balance, len(accountIDs))
	for _, id := range accountIDs {
		if b, err := r.s.state.book.Balance(id); err == nil {
			out[id] = b
		}
	}
	return out, nil
}

// Book returns the committed ledger, for assertions (audits, balances by reference).
func (s *Store) Book() *ledger.Book {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.book.Clone()
}
