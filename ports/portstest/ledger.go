package portstest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// LedgerStore is the contract of ports.LedgerRepo as a store hands it out in a unit of work
// (ports.Tx.Ledger): get-or-create accounts, balanced transfers that move balances, overdraft
// refusals that write nothing and leave the unit usable, idempotent references, two-phase
// holds, environment scoping, and a unit (or nested savepoint) that fails writing nothing.
// newStore may return one store for every subtest.
func LedgerStore(t *testing.T, newStore func(t *testing.T) ports.Store) {
	for _, tc := range []struct {
		name string
		test func(*testing.T, ports.Store)
	}{
		{"opening an account is get-or-create by reference", ledgerOpenAccounts},
		{"a transfer moves balances and is found by id in its environment", ledgerPostMoves},
		{"an overdraft is INSUFFICIENT_FUNDS, writes nothing and leaves the unit usable", ledgerOverdraft},
		{"a reference posts once: replays agree, other content conflicts", ledgerReplay},
		{"a hold reserves, posts in part, and a void releases", ledgerHolds},
		{"a failed unit of work writes nothing", ledgerRollback},
		{"a failed nested unit rolls back only itself", ledgerSavepoint},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, newStore(t)) })
	}
}

// ledgerNow is one instant per call, at the precision Postgres keeps.
func ledgerNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// unitDeadline bounds a unit of work the suite starts, as the service bounds every unit it runs
// (the store warns about, and the deadline test counts, units without one).
func unitDeadline() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), time.Minute)
}

// inTx runs fn and fails the test on an error.
func inTx(t *testing.T, s ports.Store, fn func(ctx context.Context, l ports.LedgerRepo) error) {
	t.Helper()
	ctx, cancel := unitDeadline()
	defer cancel()
	if err := s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return fn(ctx, tx.Ledger()) }); err != nil {
		t.Fatal(err)
	}
}

// fundedTenant opens a fresh tenant's available account holding amount, paid from the world.
func fundedTenant(t *testing.T, s ports.Store, amount int64) (tenant, world ledger.Account) {
	t.Helper()
	tenantID := core.NewID(core.PrefixTenant)
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) error {
		accs, err := l.OpenAccounts(ctx, ledgerNow(), ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, tenantID),
			ledger.World(core.EnvTest, ledger.AssetUSDC, "contract-"+tenantID))
		if err != nil {
			return err
		}
		tenant, world = accs[0], accs[1]
		if amount == 0 {
			return nil
		}
		_, _, err = l.Post(ctx, ledgerNow(), move("fund:"+tenantID, world.ID, tenant.ID, amount))
		return err
	})
	return tenant, world
}

func move(reference, from, to string, amount int64) ledger.TransferSpec {
	return ledger.TransferSpec{Reference: reference, Type: ledger.TypePosted, Environment: core.EnvTest, Asset: ledger.AssetUSDC,
		Postings: ledger.Move(from, to, amount), Metadata: map[string]string{"suite": "ledger"}}
}

func balances(t *testing.T, s ports.Store, ids ...string) map[string]ledger.Balance {
	t.Helper()
	var out map[string]ledger.Balance
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) (err error) {
		out, err = l.Balances(ctx, ids)
		return err
	})
	return out
}

func wantCode(t *testing.T, err error, code core.Code) {
	t.Helper()
	var e *core.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("err = %v, want %s", err, code)
	}
}

func ledgerOpenAccounts(t *testing.T, s ports.Store) {
	tenantID := core.NewID(core.PrefixTenant)
	spec := ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, tenantID)
	var first, again ledger.Account
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) error {
		accs, err := l.OpenAccounts(ctx, ledgerNow(), spec)
		first = accs[0]
		return err
	})
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) error {
		accs, err := l.OpenAccounts(ctx, ledgerNow(), spec)
		if err != nil {
			return err
		}
		again = accs[0]
		found, err := l.FindAccountByReference(ctx, core.EnvTest, ledger.AssetUSDC, tenantID, spec.Reference)
		if err != nil || found.ID != first.ID {
			t.Errorf("FindAccountByReference = %+v, %v; want %s", found, err, first.ID)
		}
		_, err = l.FindAccountByReference(ctx, core.EnvLive, ledger.AssetUSDC, tenantID, spec.Reference)
		wantCode(t, err, core.CodeAccountNotFound)
		// The caller names the account's home: in another home it is not there.
		_, err = l.FindAccountByReference(ctx, core.EnvTest, ledger.AssetUSDC, "", spec.Reference)
		wantCode(t, err, core.CodeAccountNotFound)
		other := spec
		other.NonNegative = false
		_, err = l.OpenAccounts(ctx, ledgerNow(), other)
		wantCode(t, err, core.CodeLedgerReferenceConflict)
		return nil
	})
	if again.ID != first.ID || again.Spec() != spec {
		t.Fatalf("reopened %+v, first %+v", again, first)
	}
	if b := balances(t, s, first.ID); b[first.ID] != (ledger.Balance{}) {
		t.Fatalf("a new account's balance is %+v", b[first.ID])
	}
}

func ledgerPostMoves(t *testing.T, s ports.Store) {
	payer, world := fundedTenant(t, s, 1_000)
	payee, _ := fundedTenant(t, s, 0)
	var posted ledger.Transfer
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) (err error) {
		posted, _, err = l.Post(ctx, ledgerNow(), move("pay:"+payee.ID, payer.ID, payee.ID, 400))
		return err
	})
	b := balances(t, s, payer.ID, payee.ID, world.ID, "acc_unknown")
	if b[payer.ID].Posted != 600 || b[payee.ID].Posted != 400 || b[world.ID].Posted != -1_000 {
		t.Fatalf("balances %+v", b)
	}
	if _, ok := b["acc_unknown"]; ok {
		t.Fatal("Balances answered for an account that does not exist")
	}
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) error {
		stored, err := l.Transfer(ctx, core.EnvTest, payer.Home(), posted.ID)
		if err != nil || stored.State.Status != ledger.StatusPosted || stored.Transfer.Reference != posted.Reference || len(stored.Transfer.Postings) != 2 {
			t.Errorf("Transfer = %+v, %v", stored, err)
		}
		_, err = l.Transfer(ctx, core.EnvLive, payer.Home(), posted.ID)
		wantCode(t, err, core.CodeTransferNotFound)
		// A transfer is read in the home its caller names (its rows' distribution column).
		_, err = l.Transfer(ctx, core.EnvTest, payee.Home(), posted.ID)
		wantCode(t, err, core.CodeTransferNotFound)
		found, err := l.TransferByReference(ctx, core.EnvTest, payer.Home(), posted.Reference)
		if err != nil || found.ID != posted.ID {
			t.Errorf("TransferByReference = %+v, %v; want %s", found, err, posted.ID)
		}
		_, err = l.TransferByReference(ctx, core.EnvTest, payee.Home(), posted.Reference)
		wantCode(t, err, core.CodeTransferNotFound)
		return nil
	})
}

func ledgerOverdraft(t *testing.T, s ports.Store) {
	payer, _ := fundedTenant(t, s, 100)
	payee, _ := fundedTenant(t, s, 0)
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) error {
		_, _, err := l.Post(ctx, ledgerNow(), move("over:"+payee.ID, payer.ID, payee.ID, 101))
		wantCode(t, err, core.CodeInsufficientFunds)
		_, _, err = l.Post(ctx, ledgerNow(), move("fits:"+payee.ID, payer.ID, payee.ID, 100))
		return err
	})
	if b := balances(t, s, payer.ID, payee.ID); b[payer.ID].Posted != 0 || b[payee.ID].Posted != 100 {
		t.Fatalf("balances %+v", b)
	}
	// The refused reference was never recorded, so it is free.
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) error {
		_, _, err := l.Post(ctx, ledgerNow(), move("over:"+payee.ID, payee.ID, payer.ID, 1))
		return err
	})
}

func ledgerReplay(t *testing.T, s ports.Store) {
	payer, _ := fundedTenant(t, s, 500)
	payee, _ := fundedTenant(t, s, 0)
	spec := move("once:"+payee.ID, payer.ID, payee.ID, 200)
	var first ledger.Transfer
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) (err error) {
		first, _, err = l.Post(ctx, ledgerNow(), spec)
		return err
	})
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) error {
		again, replayed, err := l.Post(ctx, ledgerNow(), spec)
		if err != nil || !replayed || again.ID != first.ID {
			t.Errorf("replay = %+v, %v, %v; want %s replayed", again, replayed, err, first.ID)
		}
		other := spec
		other.Postings = ledger.Move(payer.ID, payee.ID, 201)
		_, _, err = l.Post(ctx, ledgerNow(), other)
		wantCode(t, err, core.CodeLedgerReferenceConflict)
		return nil
	})
	if b := balances(t, s, payer.ID, payee.ID); b[payer.ID].Posted != 300 || b[payee.ID].Posted != 200 {
		t.Fatalf("a replay moved money again: %+v", b)
	}
}

func ledgerHolds(t *testing.T, s ports.Store) {
	payer, _ := fundedTenant(t, s, 1_000)
	payee, _ := fundedTenant(t, s, 0)
	hold := func(ref string, amount int64) (h ledger.Transfer) {
		inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) (err error) {
			h, _, err = l.Post(ctx, ledgerNow(), ledger.TransferSpec{Reference: ref, Type: ledger.TypePending, Environment: core.EnvTest,
				Asset: ledger.AssetUSDC, Postings: ledger.Move(payer.ID, payee.ID, amount)})
			return err
		})
		return h
	}
	first := hold("hold1:"+payee.ID, 600)
	if b := balances(t, s, payer.ID)[payer.ID]; b.Posted != 1_000 || b.Available() != 400 {
		t.Fatalf("after a hold of 600: %+v (available %d)", b, b.Available())
	}
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) error {
		_, _, err := l.Post(ctx, ledgerNow(), move("spend:"+payee.ID, payer.ID, payee.ID, 401))
		wantCode(t, err, core.CodeInsufficientFunds)
		// A hold named in another home than its own is not there: nothing is posted.
		_, _, err = l.Post(ctx, ledgerNow(), ledger.TransferSpec{Reference: "post1-elsewhere:" + payee.ID, Type: ledger.TypePostPending,
			Environment: core.EnvTest, PendingID: first.ID, TargetHome: payee.Home(), Amount: 250})
		wantCode(t, err, core.CodeTransferNotFound)
		// The caller names the hold's home (TargetHome); the void below leaves it to the store.
		_, _, err = l.Post(ctx, ledgerNow(), ledger.TransferSpec{Reference: "post1:" + payee.ID, Type: ledger.TypePostPending,
			Environment: core.EnvTest, PendingID: first.ID, TargetHome: payer.Home(), Amount: 250})
		return err
	})
	second := hold("hold2:"+payee.ID, 300)
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) error {
		_, _, err := l.Post(ctx, ledgerNow(), ledger.TransferSpec{Reference: "void2:" + payee.ID, Type: ledger.TypeVoidPending,
			Environment: core.EnvTest, PendingID: second.ID})
		if err != nil {
			return err
		}
		for id, want := range map[string]ledger.TransferStatus{first.ID: ledger.StatusPosted, second.ID: ledger.StatusVoided} {
			stored, err := l.Transfer(ctx, core.EnvTest, payer.Home(), id)
			if err != nil || stored.State.Status != want {
				t.Errorf("hold %s: %+v, %v; want %s", id, stored.State, err, want)
			}
		}
		return nil
	})
	b := balances(t, s, payer.ID, payee.ID)
	if b[payer.ID] != (ledger.Balance{Posted: 750}) || b[payee.ID] != (ledger.Balance{Posted: 250}) {
		t.Fatalf("after posting 250 of one hold and voiding another: %+v", b)
	}
}

var errAbort = errors.New("portstest: abort the unit of work")

func ledgerRollback(t *testing.T, s ports.Store) {
	payer, _ := fundedTenant(t, s, 100)
	payee, _ := fundedTenant(t, s, 0)
	spec := move("rolled:"+payee.ID, payer.ID, payee.ID, 60)
	ctx, cancel := unitDeadline()
	defer cancel()
	err := s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if _, _, err := tx.Ledger().Post(ctx, ledgerNow(), spec); err != nil {
			return err
		}
		if _, err := tx.Ledger().OpenAccounts(ctx, ledgerNow(), ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, "rolled-"+payee.ID)); err != nil {
			return err
		}
		return errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("InTx = %v, want the unit's own error", err)
	}
	if b := balances(t, s, payer.ID, payee.ID); b[payer.ID].Posted != 100 || b[payee.ID].Posted != 0 {
		t.Fatalf("a rolled-back post moved money: %+v", b)
	}
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) error {
		_, err := l.FindAccountByReference(ctx, core.EnvTest, ledger.AssetUSDC, "rolled-"+payee.ID, ledger.TenantAvailableRef("rolled-"+payee.ID))
		wantCode(t, err, core.CodeAccountNotFound)
		_, replayed, err := l.Post(ctx, ledgerNow(), spec)
		if err != nil || replayed {
			t.Errorf("the rolled-back reference: replayed=%v err=%v; want a first post", replayed, err)
		}
		return nil
	})
}

func ledgerSavepoint(t *testing.T, s ports.Store) {
	payer, _ := fundedTenant(t, s, 100)
	payee, _ := fundedTenant(t, s, 0)
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) error {
		if _, _, err := l.Post(ctx, ledgerNow(), move("outer:"+payee.ID, payer.ID, payee.ID, 10)); err != nil {
			return err
		}
		inner := s.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			if _, _, err := tx.Ledger().Post(ctx, ledgerNow(), move("inner:"+payee.ID, payer.ID, payee.ID, 20)); err != nil {
				return err
			}
			return errAbort
		})
		if !errors.Is(inner, errAbort) {
			t.Errorf("nested InTx = %v", inner)
		}
		b, err := l.Balances(ctx, []string{payee.ID})
		if err == nil && b[payee.ID].Posted != 10 {
			t.Errorf("inside the unit after the savepoint rolled back: %+v", b[payee.ID])
		}
		return err
	})
	if b := balances(t, s, payer.ID, payee.ID); b[payer.ID].Posted != 90 || b[payee.ID].Posted != 10 {
		t.Fatalf("after the unit: %+v", b)
	}
}
