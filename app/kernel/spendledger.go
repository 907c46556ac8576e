package kernel

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/spend"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// GuardLedger wraps a store so that every ledger debit posted on a caller's behalf (the context
// carries the caller, spend.WithActor) passes agent confinement: a transfer that debits one of
// the caller's tenant's accounts that hold money the tenant controls (the service balance, a
// wallet's mirror, an escrow, a card hold) toward anything but the tenant's own service
// balance is refused for an agent unless the account is its own wallet's mirror. Background
// work carries no caller and passes; the use cases' own guard calls decide the rest (caps,
// policies, two-factor) at acceptance, where the error can be clear.
func GuardLedger(s ports.Store) ports.Store { return guardedStore{Store: s} }

type guardedStore struct{ ports.Store }

func (s guardedStore) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	return s.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if _, acting := spend.ActorFrom(ctx); !acting {
			return fn(ctx, tx)
		}
		return fn(ctx, guardedTx{Tx: tx, known: &accountMemo{byID: map[string]ledger.Account{}}})
	})
}

type guardedTx struct {
	ports.Tx
	known *accountMemo
}

func (t guardedTx) Ledger() ports.LedgerRepo {
	tx := t.Tx
	return &guardedLedger{LedgerRepo: tx.Ledger(), tx: tx, known: t.known}
}

// accountMemo remembers the accounts a unit of work opened or found, so a Post names its
// sources without another read.
type accountMemo struct {
	mu   sync.Mutex
	byID map[string]ledger.Account
}

type guardedLedger struct {
	ports.LedgerRepo
	tx    ports.Tx
	known *accountMemo
}

func (l *guardedLedger) remember(accs ...ledger.Account) {
	l.known.mu.Lock()
	defer l.known.mu.Unlock()
	for _, a := range accs {
		l.known.byID[a.ID] = a
	}
}

func (l *guardedLedger) OpenAccounts(ctx context.Context, now time.Time, specs ...ledger.AccountSpec) ([]ledger.Account, error) {
	accs, err := l.LedgerRepo.OpenAccounts(ctx, now, specs...)
	l.remember(accs...)
	return accs, err
}

func (l *guardedLedger) FindAccountByReference(ctx context.Context, env core.Environment, asset, reference string) (ledger.Account, error) {
	a, err := l.LedgerRepo.FindAccountByReference(ctx, env, asset, reference)
	if err == nil {
		l.remember(a)
	}
	return a, err
}

func (l *guardedLedger) Post(ctx context.Context, now time.Time, spec ledger.TransferSpec) (ledger.Transfer, bool, error) {
	if p, acting := spend.ActorFrom(ctx); acting && p.AgentID != "" {
		if err := l.confine(ctx, p, spec); err != nil {
			return ledger.Transfer{}, false, err
		}
	}
	return l.LedgerRepo.Post(ctx, now, spec)
}

// confine puts each guarded debit of spec to the rule. Settling an earlier hold (post, void,
// reversal) carries no postings of its own: the hold was decided when it was placed.
func (l *guardedLedger) confine(ctx context.Context, p auth.Principal, spec ledger.TransferSpec) error {
	if len(spec.Postings) == 0 {
		return nil
	}
	accounts := make([]ledger.Account, 0, len(spec.Postings))
	for _, posting := range spec.Postings {
		a, err := l.account(ctx, p, spec.Environment, posting.AccountID)
		if err != nil {
			return err
		}
		accounts = append(accounts, a)
	}
	for i, posting := range spec.Postings {
		src, guarded := SpendSourceOf(accounts[i], p.TenantID)
		if posting.Amount >= 0 || !guarded || returnsToBalance(spec.Postings, accounts, p.TenantID) {
			continue
		}
		if err := ConfineSpend(ctx, l.tx, spend.Request{Principal: p, Source: src, AmountBaseUnits: -posting.Amount}); err != nil {
			return err
		}
	}
	return nil
}

// account is an account of the spec, from memory or read as one of the caller's tenant's; an
// account of no tenant of the caller's (a platform account, the world) reads as such.
func (l *guardedLedger) account(ctx context.Context, p auth.Principal, env core.Environment, id string) (ledger.Account, error) {
	l.known.mu.Lock()
	a, ok := l.known.byID[id]
	l.known.mu.Unlock()
	if ok {
		return a, nil
	}
	tx := l.tx
	found, err := tx.LedgerReports().FindAccount(ctx, env, p.TenantID, id)
	if err != nil {
		if errors.Is(err, core.ErrAccountNotFound) {
			return ledger.Account{ID: id}, nil
		}
		return ledger.Account{}, err
	}
	l.remember(found.Account)
	return found.Account, nil
}

// SpendSourceOf names the spend source a tenant's account is, and whether debiting it is guarded:
// the accounts that hold money the tenant controls. Holds already on their way out (an
// off-ramp's reservation, a card's authorization) were guarded when they were placed.
func SpendSourceOf(a ledger.Account, tenantID string) (spend.Source, bool) {
	if a.TenantID == "" || a.TenantID != tenantID {
		return spend.Source{}, false
	}
	switch a.Kind {
	case ledger.KindTenantAvailable:
		return spend.Source{Kind: spend.SourceServiceBalance}, true
	case ledger.KindWalletOnchain:
		id := strings.TrimSuffix(strings.TrimPrefix(a.Reference, "wallet:"), ":onchain")
		return spend.Source{Kind: spend.SourceWallet, WalletID: id}, true
	case ledger.KindClaimEscrow:
		return spend.Source{Kind: spend.SourceEscrow}, true
	}
	return spend.Source{}, false
}

// returnsToBalance reports a transfer whose every credit lands on the tenant's own service
// balance (money coming home, not leaving).
func returnsToBalance(postings []ledger.Posting, accounts []ledger.Account, tenantID string) bool {
	for i, posting := range postings {
		if posting.Amount > 0 && (accounts[i].Kind != ledger.KindTenantAvailable || accounts[i].TenantID != tenantID) {
			return false
		}
	}
	return true
}
