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

// GuardLedger wraps a store so that no debit of a tenant's money posted on a caller's behalf (the
// context carries the caller, spend.WithActor) can skip the spend guard. A transfer that debits
// one of the caller's tenant's accounts that hold money the tenant controls (the service
// balance, a wallet's mirror, an escrow) toward anything but the tenant's own service balance
// is refused:
//
//   - for an agent, unless the account is its own wallet's mirror (confinement, decided again
//     here so a route that forgot it still refuses with a clear error);
//   - for everyone, unless the same unit of work put a spend of that source to the guard first
//     (ConfineSpend or SpendGuard.Authorize). A debit that did not is a programming error: the
//     unit of work fails with INTERNAL and commits nothing, so a new route that moves money
//     without the guard cannot ship unnoticed.
//
// Two paths are exempt, each by a typed mark rather than by what a transfer says of itself:
// background work carries no caller (the HTTP middleware attaches one to every authenticated
// request, nothing else does), and a job only executes what a request that passed the guard
// accepted, keyed by its business id; transfers that record what the chain already did are
// posted on a context marked by RecordingChainFacts (the wallet mirror), facts rather than
// decisions. A transfer's metadata exempts nothing.
func GuardLedger(s ports.Store) ports.Store { return guardedStore{Store: s} }

type guardedStore struct{ ports.Store }

type chainFactsKey struct{}

// RecordingChainFacts marks ctx for posting what the chain already did (a USDC transfer log the
// wallet mirror indexes): the guard decides spends before they happen, and a fact on chain is
// no longer one, whoever's request caught the mirror up. Only the mirror's posting calls it.
func RecordingChainFacts(ctx context.Context) context.Context {
	return context.WithValue(ctx, chainFactsKey{}, true)
}

func recordsChainFacts(ctx context.Context) bool {
	marked, _ := ctx.Value(chainFactsKey{}).(bool)
	return marked
}

type guardMemoKey struct{}

// InTx opens the unit of work with a memo of the guard's passes shared with every savepoint
// nested in it (they run with the same context), so a pass decided in a savepoint counts for
// the debit the outer unit posts.
func (s guardedStore) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	if _, acting := spend.ActorFrom(ctx); !acting {
		return s.Store.InTx(ctx, fn)
	}
	memo, nested := ctx.Value(guardMemoKey{}).(*accountMemo)
	if !nested {
		memo = &accountMemo{byID: map[string]ledger.Account{}, passed: map[string]bool{}}
		ctx = context.WithValue(ctx, guardMemoKey{}, memo)
	}
	return s.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		return fn(ctx, guardedTx{Tx: tx, known: memo})
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
// sources without another read, and the sources the spend guard let this unit of work spend.
type accountMemo struct {
	mu     sync.Mutex
	byID   map[string]ledger.Account
	passed map[string]bool
}

// passKey names a source as a ledger debit sees it: a funding-account card spends the service
// balance.
func passKey(src spend.Source) string {
	switch src.Kind {
	case spend.SourceCardFunding, spend.SourceServiceBalance:
		return string(spend.SourceServiceBalance)
	case spend.SourceWallet:
		return string(spend.SourceWallet) + ":" + src.WalletID
	}
	return string(src.Kind)
}

// passedKey names a pass by the tenant whose source it spends: a unit of work that decided
// another tenant's spend (a recipient's request re-deciding the sender's held payment) gains no
// pass for its caller's own money.
func passedKey(tenantID string, src spend.Source) string { return tenantID + "/" + passKey(src) }

// markPassed records in ctx's unit of work that the guard let it spend tenantID's src.
func markPassed(ctx context.Context, tenantID string, src spend.Source) {
	memo, ok := ctx.Value(guardMemoKey{}).(*accountMemo)
	if !ok {
		return
	}
	memo.mu.Lock()
	defer memo.mu.Unlock()
	memo.passed[passedKey(tenantID, src)] = true
}

func (m *accountMemo) hasPassed(tenantID string, src spend.Source) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.passed[passedKey(tenantID, src)]
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

func (l *guardedLedger) FindAccountByReference(ctx context.Context, env core.Environment, asset, home, reference string) (ledger.Account, error) {
	a, err := l.LedgerRepo.FindAccountByReference(ctx, env, asset, home, reference)
	if err == nil {
		l.remember(a)
	}
	return a, err
}

func (l *guardedLedger) Post(ctx context.Context, now time.Time, spec ledger.TransferSpec) (ledger.Transfer, bool, error) {
	if p, acting := spend.ActorFrom(ctx); acting && !recordsChainFacts(ctx) {
		if err := l.check(ctx, p, spec); err != nil {
			return ledger.Transfer{}, false, err
		}
	}
	return l.LedgerRepo.Post(ctx, now, spec)
}

// check puts each guarded debit of spec to the rule. Settling an earlier hold (post, void,
// reversal) carries no postings of its own: the hold was decided when it was placed.
func (l *guardedLedger) check(ctx context.Context, p auth.Principal, spec ledger.TransferSpec) error {
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
	if returnsToBalance(spec.Postings, accounts, p.TenantID) {
		return nil
	}
	for i, posting := range spec.Postings {
		src, guarded := SpendSourceOf(accounts[i], p.TenantID)
		if posting.Amount >= 0 || !guarded {
			continue
		}
		if err := confineAgent(ctx, l.tx, spend.Request{Principal: p, Source: src, AmountBaseUnits: -posting.Amount}); err != nil {
			return err
		}
		if !l.known.hasPassed(p.TenantID, src) {
			return core.E(core.CodeInternal, "kernel: transfer %s debits the tenant's %s without passing the spend guard",
				spec.Reference, passKey(src))
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
