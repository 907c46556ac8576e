package kernel

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ports"

	"github.com/corridorhq/corridor/core/spend"
	"github.com/corridorhq/corridor/ledger"
)

// TestSpendSourceOf: the accounts that hold a tenant's money are guarded sources, each of its kind;
// holds on their way out, platform accounts and another tenant's accounts are not.
func TestSpendSourceOf(t *testing.T) {
	for _, c := range []struct {
		name    string
		account ledger.Account
		want    spend.Source
		guarded bool
	}{
		{"service balance", ledger.Account{TenantID: "ten_1", Kind: ledger.KindTenantAvailable}, spend.Source{Kind: spend.SourceServiceBalance}, true},
		{"wallet mirror", ledger.Account{TenantID: "ten_1", Kind: ledger.KindWalletOnchain, Reference: ledger.WalletOnchainRef("wal_9")},
			spend.Source{Kind: spend.SourceWallet, WalletID: "wal_9"}, true},
		{"escrow", ledger.Account{TenantID: "ten_1", Kind: ledger.KindClaimEscrow}, spend.Source{Kind: spend.SourceEscrow}, true},
		{"off-ramp hold", ledger.Account{TenantID: "ten_1", Kind: ledger.KindOfframpLocked}, spend.Source{}, false},
		{"another tenant's balance", ledger.Account{TenantID: "ten_2", Kind: ledger.KindTenantAvailable}, spend.Source{}, false},
		{"platform account", ledger.Account{Kind: ledger.KindWorld}, spend.Source{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, guarded := SpendSourceOf(c.account, "ten_1")
			if got != c.want || guarded != c.guarded {
				t.Fatalf("SpendSourceOf = %+v, %v; want %+v, %v", got, guarded, c.want, c.guarded)
			}
		})
	}
}

// TestReturnsToBalance: money coming home to the tenant's own service balance is not a spend.
func TestReturnsToBalance(t *testing.T) {
	own := ledger.Account{ID: "acc_a", TenantID: "ten_1", Kind: ledger.KindTenantAvailable}
	wallet := ledger.Account{ID: "acc_w", TenantID: "ten_1", Kind: ledger.KindWalletOnchain}
	world := ledger.Account{ID: "acc_x", Kind: ledger.KindWorld}
	if !returnsToBalance(ledger.Move(wallet.ID, own.ID, 5), []ledger.Account{wallet, own}, "ten_1") {
		t.Fatal("a move into the tenant's own balance is a return")
	}
	if returnsToBalance(ledger.Move(own.ID, world.ID, 5), []ledger.Account{own, world}, "ten_1") {
		t.Fatal("a move to the world is not a return")
	}
}

// fakeStore runs a unit of work over fakeTx and reports whether it committed.
type fakeStore struct {
	ports.Store
	ledger    *fakeLedger
	committed bool
}

func (s *fakeStore) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	err := fn(ctx, fakeTx{ledger: s.ledger})
	s.committed = err == nil
	return err
}

type fakeTx struct {
	ports.Tx
	ledger *fakeLedger
}

func (t fakeTx) Ledger() ports.LedgerRepo { return t.ledger }

// fakeLedger opens the accounts it is asked for and counts what it posts.
type fakeLedger struct {
	ports.LedgerRepo
	posted int
}

func (l *fakeLedger) OpenAccounts(_ context.Context, now time.Time, specs ...ledger.AccountSpec) ([]ledger.Account, error) {
	out := make([]ledger.Account, len(specs))
	for i, s := range specs {
		a, err := ledger.NewAccount(core.NewID(core.PrefixAccount), s, now)
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

func (l *fakeLedger) Post(context.Context, time.Time, ledger.TransferSpec) (ledger.Transfer, bool, error) {
	l.posted++
	return ledger.Transfer{}, false, nil
}

// postRefund is a unit of work that moves 5 USD from the tenant's service balance to the world,
// as a refund does, putting it to the guard first when guarded is set.
func postRefund(ctx context.Context, t *testing.T, store ports.Store, p auth.Principal, guarded bool) error {
	t.Helper()
	return store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if guarded {
			if err := ConfineSpend(ctx, tx, spend.Request{Principal: p, Source: spend.Source{Kind: spend.SourceServiceBalance}}); err != nil {
				return err
			}
		}
		now := time.Now()
		accs, err := tx.Ledger().OpenAccounts(ctx, now, ledger.TenantAvailable(core.EnvTest, ServiceAsset, p.TenantID),
			ledger.World(core.EnvTest, ServiceAsset, "refunds"))
		if err != nil {
			return err
		}
		_, _, err = tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: "refund:1", Type: ledger.TypePosted,
			Environment: core.EnvTest, Asset: ServiceAsset, Postings: ledger.Move(accs[0].ID, accs[1].ID, 5_000_000)})
		return err
	})
}

// TestGuardLedger_DebitWithoutTheGuardFails: the backstop no route can forget. A caller's unit of
// work that debits the tenant's service balance without putting the spend to the guard fails
// with INTERNAL and commits nothing (nothing reaches the ledger); the same unit of work with the
// guard's pass posts; a savepoint's pass counts for the enclosing unit; background work (no
// caller) records what a guarded request accepted and posts.
func TestGuardLedger_DebitWithoutTheGuardFails(t *testing.T) {
	p := auth.Principal{TenantID: "ten_1", Environment: core.EnvTest}
	acting := spend.WithActor(context.Background(), p)

	inner := &fakeStore{ledger: &fakeLedger{}}
	err := postRefund(acting, t, GuardLedger(inner), p, false)
	if !core.HasCode(err, core.CodeInternal) || inner.committed || inner.ledger.posted != 0 {
		t.Fatalf("unguarded debit: err %v, committed %v, posted %d; want INTERNAL, nothing committed", err, inner.committed, inner.ledger.posted)
	}
	if !strings.Contains(err.Error(), "without passing the spend guard") {
		t.Fatalf("error %q does not say why", err)
	}

	inner = &fakeStore{ledger: &fakeLedger{}}
	if err := postRefund(acting, t, GuardLedger(inner), p, true); err != nil || inner.ledger.posted != 1 {
		t.Fatalf("guarded debit: err %v, posted %d", err, inner.ledger.posted)
	}

	inner = &fakeStore{ledger: &fakeLedger{}}
	guarded := GuardLedger(inner)
	err = guarded.InTx(acting, func(ctx context.Context, tx ports.Tx) error {
		if err := guarded.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			return ConfineSpend(ctx, tx, spend.Request{Principal: p, Source: spend.Source{Kind: spend.SourceServiceBalance}})
		}); err != nil {
			return err
		}
		return postRefund(ctx, t, guarded, p, false)
	})
	if err != nil || inner.ledger.posted != 1 {
		t.Fatalf("pass in a savepoint: err %v, posted %d", err, inner.ledger.posted)
	}

	inner = &fakeStore{ledger: &fakeLedger{}}
	if err := postRefund(context.Background(), t, GuardLedger(inner), p, false); err != nil || inner.ledger.posted != 1 {
		t.Fatalf("background work: err %v, posted %d", err, inner.ledger.posted)
	}
}

// TestGuardLedger_PassIsPerSource: a pass for one wallet does not cover a debit of the service
// balance, nor another wallet.
func TestGuardLedger_PassIsPerSource(t *testing.T) {
	p := auth.Principal{TenantID: "ten_1", Environment: core.EnvTest}
	inner := &fakeStore{ledger: &fakeLedger{}}
	guarded := GuardLedger(inner)
	err := guarded.InTx(spend.WithActor(context.Background(), p), func(ctx context.Context, tx ports.Tx) error {
		if err := ConfineSpend(ctx, tx, spend.Request{Principal: p, Source: spend.Source{Kind: spend.SourceWallet, WalletID: "wal_1"}}); err != nil {
			return err
		}
		return postRefund(ctx, t, guarded, p, false)
	})
	if !core.HasCode(err, core.CodeInternal) || inner.ledger.posted != 0 {
		t.Fatalf("a wallet's pass covered the service balance: err %v, posted %d", err, inner.ledger.posted)
	}
	if passKey(spend.Source{Kind: spend.SourceWallet, WalletID: "wal_1"}) == passKey(spend.Source{Kind: spend.SourceWallet, WalletID: "wal_2"}) {
		t.Fatal("two wallets share a pass")
	}
}

// TestGuardLedger_PassIsPerTenant: a unit of work that decided another tenant's spend of its
// service balance (a recipient's request re-deciding the sender's held payment) holds no pass
// for its own caller's balance.
func TestGuardLedger_PassIsPerTenant(t *testing.T) {
	p := auth.Principal{TenantID: "ten_1", Environment: core.EnvTest}
	inner := &fakeStore{ledger: &fakeLedger{}}
	guarded := GuardLedger(inner)
	err := guarded.InTx(spend.WithActor(context.Background(), p), func(ctx context.Context, tx ports.Tx) error {
		sender := auth.Principal{TenantID: "ten_2", Environment: core.EnvTest}
		if _, denied, err := NewSpendGuard(nil).Decide(ctx, tx, spend.Request{Principal: sender,
			Source: spend.Source{Kind: spend.SourceServiceBalance}, AmountBaseUnits: 1}, SpendChecks{}); err != nil || denied != nil {
			t.Fatalf("the sender's decision: %v %v", denied, err)
		}
		return postRefund(ctx, t, guarded, p, false)
	})
	if !core.HasCode(err, core.CodeInternal) || inner.ledger.posted != 0 {
		t.Fatalf("another tenant's pass covered the caller's service balance: err %v, posted %d", err, inner.ledger.posted)
	}
}

// TestDecide_OneOrderAndOnlyAFullPassCounts: the guard decides policy, caps and approval in that
// order, the first refusal answering with its step; a refused spend records no pass, so the
// unit of work cannot debit the source after it.
func TestDecide_OneOrderAndOnlyAFullPassCounts(t *testing.T) {
	p := auth.Principal{TenantID: "ten_1", Environment: core.EnvTest}
	g := NewSpendGuard(nil)
	req := spend.Request{Principal: p, Source: spend.Source{Kind: spend.SourceServiceBalance}, AmountBaseUnits: 5_000_000, Reference: "ref_1"}
	deny := func(ctx context.Context) (*core.Error, error) { return core.E(core.CodeInsufficientScope, "no"), nil }
	allow := func(ctx context.Context) (*core.Error, error) { return nil, nil }
	var order []string
	track := func(name string, f func(context.Context) (*core.Error, error)) func(context.Context) (*core.Error, error) {
		return func(ctx context.Context) (*core.Error, error) { order = append(order, name); return f(ctx) }
	}
	for _, c := range []struct {
		name      string
		checks    SpendChecks
		step      string
		wantOrder string
	}{
		{"policy denies", SpendChecks{Policy: track("policy", deny), Caps: func(context.Context) error { order = append(order, "caps"); return nil },
			Approval: track("approval", allow)}, StepPolicy, "policy"},
		{"caps refuse", SpendChecks{Policy: track("policy", allow), Caps: func(context.Context) error {
			order = append(order, "caps")
			return core.E(core.CodeInsufficientScope, "cap")
		}, Approval: track("approval", allow)}, StepCaps, "policy caps"},
		{"approval refuses", SpendChecks{Policy: track("policy", allow), Caps: func(context.Context) error { order = append(order, "caps"); return nil },
			Approval: track("approval", deny)}, StepApproval, "policy caps approval"},
		{"all pass", SpendChecks{Policy: track("policy", allow), Caps: func(context.Context) error { order = append(order, "caps"); return nil },
			Approval: track("approval", allow)}, "", "policy caps approval"},
	} {
		t.Run(c.name, func(t *testing.T) {
			order = nil
			inner := &fakeStore{ledger: &fakeLedger{}}
			guarded := GuardLedger(inner)
			err := guarded.InTx(spend.WithActor(context.Background(), p), func(ctx context.Context, tx ports.Tx) error {
				step, denied, err := g.Decide(ctx, tx, req, c.checks)
				if step != c.step || (step == "") != (denied == nil && err == nil) {
					t.Fatalf("step %q denied %v err %v, want step %q", step, denied, err, c.step)
				}
				return postRefund(ctx, t, guarded, p, false)
			})
			if got := strings.Join(order, " "); got != c.wantOrder {
				t.Fatalf("steps ran %q, want %q", got, c.wantOrder)
			}
			if passed := err == nil; passed != (c.step == "") {
				t.Fatalf("debit after %s: err %v", c.name, err)
			}
		})
	}
}

// TestGuardLedger_ChainFactsAndHomecomingPass: a transfer recording what the chain already did
// (the wallet mirror, on a context marked RecordingChainFacts) and money returning to the
// tenant's own service balance are no spends: they post on a caller's context without a pass.
// Metadata claiming a chain source exempts nothing.
func TestGuardLedger_ChainFactsAndHomecomingPass(t *testing.T) {
	p := auth.Principal{TenantID: "ten_1", Environment: core.EnvTest}
	inner := &fakeStore{ledger: &fakeLedger{}}
	guarded := GuardLedger(inner)
	err := guarded.InTx(spend.WithActor(context.Background(), p), func(ctx context.Context, tx ports.Tx) error {
		now := time.Now()
		accs, err := tx.Ledger().OpenAccounts(ctx, now, ledger.WalletOnchain(core.EnvTest, ServiceAsset, p.TenantID, "wal_1"),
			ledger.World(core.EnvTest, ServiceAsset, "chain"), ledger.TenantAvailable(core.EnvTest, ServiceAsset, p.TenantID))
		if err != nil {
			return err
		}
		if _, _, err := tx.Ledger().Post(RecordingChainFacts(ctx), now, ledger.TransferSpec{Reference: "chain:1", Type: ledger.TypePosted, Environment: core.EnvTest,
			Asset: ServiceAsset, Postings: ledger.Move(accs[0].ID, accs[1].ID, 1)}); err != nil {
			return err
		}
		_, _, err = tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: "chain:2", Type: ledger.TypePosted, Environment: core.EnvTest,
			Asset: ServiceAsset, Postings: ledger.Move(accs[0].ID, accs[1].ID, 1), Metadata: map[string]string{"source": "chain"}})
		if !core.HasCode(err, core.CodeInternal) {
			t.Fatalf("a debit whose metadata says chain posted without a pass: %v", err)
		}
		_, _, err = tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: "home:1", Type: ledger.TypePosted, Environment: core.EnvTest,
			Asset: ServiceAsset, Postings: ledger.Move(accs[0].ID, accs[2].ID, 1)})
		return err
	})
	if err != nil || inner.ledger.posted != 2 {
		t.Fatalf("err %v, posted %d; want both posted", err, inner.ledger.posted)
	}
}
