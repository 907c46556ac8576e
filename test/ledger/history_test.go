package ledger

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// TestStore_TwinCommitsFirst: a transfer decided while a concurrent transaction holds the same
// reference uncommitted in the same home waits for it, then answers as a replay (here: a
// conflict, since the content differs) instead of failing on the unique key. The twin debits
// another account of the same tenant, so both transfers have that tenant's home: a reference is
// unique per home on every database (TestStore_ReferenceAcrossHomes says what holds across
// homes).
func TestStore_TwinCommitsFirst(t *testing.T) {
	t.Parallel()
	tenant := newTenantID()
	a, world := fund(t, tenant, usd(10))
	c := open(t, ledger.WalletOnchain(core.EnvTest, ledger.AssetUSDC, tenant, "twin_"+tenant))[0] // a reference names no tenant
	def().mustPost(t, moveSpec(ref("fund-wallet", tenant), world.ID, c.ID, usd(10)))
	b := open(t, ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, newTenantID()))[0]
	reference := ref("twin")
	holding, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		err := store().InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
			if _, _, err := tx.Ledger().Post(ctx, time.Now(), moveSpec(reference, a.ID, b.ID, usd(1))); err != nil {
				return err
			}
			close(holding)
			<-release
			return nil
		})
		if err != nil {
			t.Errorf("first: %v", err)
		}
	}()
	<-holding
	done := make(chan error, 1)
	go func() {
		_, _, err := post(moveSpec(reference, c.ID, b.ID, usd(2))) // another debited account, the same home
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // let the twin reach the unique index and wait there
	close(release)
	wg.Wait()
	if err := <-done; !errors.Is(err, core.ErrReferenceConflict) {
		t.Fatalf("twin: %v, want LEDGER_REFERENCE_CONFLICT", err)
	}
	if n := countTransfers(t, reference); n != 1 {
		t.Fatalf("%d transfers with the reference", n)
	}
	if got := balances(t, c.ID)[c.ID].Posted; got != usd(10) {
		t.Fatalf("the refused twin moved money: %d", got)
	}
}

// TestStore_ReferenceAcrossHomes: the same reference posted in two homes (two tenants' debited
// accounts). On PostgreSQL the reference key is global, so the second is refused
// (LEDGER_REFERENCE_CONFLICT); on Citus the keys are per home, so it is a transfer of its own
// in its home, and corridor check's ledger-keys-across-homes line reports the reference. No
// caller posts one reference in two homes (a retry derives the same accounts, so the same
// home); the check is what would find one. A database of its own, so the planted reference
// does not reach the shared database's checks.
func TestStore_ReferenceAcrossHomes(t *testing.T) {
	t.Parallel()
	p := newPrivateLedger(t)
	m := mode{name: "private", s: p.store}
	a, _ := m.fund(t, newTenantID(), usd(10))
	c, _ := m.fund(t, newTenantID(), usd(10))
	b := m.open(t, ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, newTenantID()))[0]
	reference := ref("two-homes")
	m.mustPost(t, moveSpec(reference, a.ID, b.ID, usd(1)))
	_, _, err := m.post(moveSpec(reference, c.ID, b.ID, usd(2)))
	citus, cerr := postgres.IsCitus(context.Background(), p.store.DB().DB)
	if cerr != nil {
		t.Fatal(cerr)
	}
	var n int
	if err := p.store.DB().QueryRowContext(context.Background(),
		"SELECT count(*) FROM ledger_transfers WHERE reference = ?", reference).Scan(&n); err != nil {
		t.Fatal(err)
	}
	rep, rerr := postgres.CheckInvariants(context.Background(), p.store.DB(), nil)
	if rerr != nil {
		t.Fatal(rerr)
	}
	keys := checkNamed(t, rep, "ledger-keys-across-homes")
	if !citus {
		if !errors.Is(err, core.ErrReferenceConflict) || n != 1 || !keys.OK() {
			t.Fatalf("PostgreSQL: second home %v, %d transfers, check %v; want LEDGER_REFERENCE_CONFLICT, 1, ok", err, n, keys.Problems)
		}
		return
	}
	if err != nil || n != 2 {
		t.Fatalf("Citus: second home %v, %d transfers; want a transfer of its own (2)", err, n)
	}
	if len(keys.Problems) != 1 || !strings.Contains(keys.Problems[0], reference) {
		t.Fatalf("Citus: ledger-keys-across-homes %v, want the reference %s reported", keys.Problems, reference)
	}
	if got := m.balances(t, c.ID)[c.ID].Posted; got != usd(8) {
		t.Fatalf("Citus: the second home's transfer: %d left, want 8", got)
	}
}

// checkNamed is the report's check of that name.
func checkNamed(t *testing.T, rep postgres.InvariantReport, name string) postgres.InvariantCheck {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s check", name)
	return postgres.InvariantCheck{}
}

// TestStore_BalanceAsOf: the balance as of any instant, read from the postings, equals the
// balance observed right after each transfer and what the pure engine recomputes from the
// history (ledger.Rebuild of ledger.AsOf).
func TestStore_BalanceAsOf(t *testing.T) {
	t.Parallel()
	acct, world := fund(t, newTenantID(), 0)
	other := open(t, ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, newTenantID()))[0]
	base := time.Now().UTC().Truncate(time.Second).Add(time.Minute)
	type step struct {
		at      time.Time
		balance ledger.Balance
	}
	var steps []step
	var history []ledger.Transfer
	var holdID string
	for i := 0; i < 12; i++ {
		at := base.Add(time.Duration(i) * time.Second)
		var spec ledger.TransferSpec
		switch {
		case i%4 == 0:
			spec = moveSpec(ref("asof-in"), world.ID, acct.ID, usd(int64(10+i)))
		case i%4 == 1:
			spec = moveSpec(ref("asof-out"), acct.ID, other.ID, usd(3))
		case i%4 == 2:
			spec = ledger.TransferSpec{Reference: ref("asof-hold"), Type: ledger.TypePending, Environment: core.EnvTest,
				Asset: ledger.AssetUSDC, Postings: ledger.Move(acct.ID, other.ID, usd(2))}
		default:
			spec = ledger.TransferSpec{Reference: ref("asof-post"), Type: ledger.TypePostPending, Environment: core.EnvTest, PendingID: holdID, Amount: usd(1)}
		}
		var tr ledger.Transfer
		inTx(t, func(ctx context.Context, tx ports.Tx) error {
			var err error
			tr, _, err = tx.Ledger().Post(ctx, at, spec)
			return err
		})
		if spec.Type == ledger.TypePending {
			holdID = tr.ID
		}
		if !tr.CreatedAt.Equal(at) {
			t.Fatalf("transfer %d created at %s, decided at %s", i, tr.CreatedAt, at)
		}
		history = append(history, tr)
		steps = append(steps, step{at: at, balance: balances(t, acct.ID)[acct.ID]})
	}
	// The world account's funding transfer of fund() happened before base, so history here
	// starts from zero for acct.
	for i, s := range steps {
		for _, instant := range []time.Time{s.at, s.at.Add(500 * time.Millisecond)} {
			var got map[string]ledger.Balance
			inTx(t, func(ctx context.Context, tx ports.Tx) error {
				var err error
				got, err = tx.LedgerReports().BalancesAsOf(ctx, []string{acct.ID}, instant)
				return err
			})
			rebuilt, err := ledger.Rebuild(ledger.AsOf(history, instant))
			if err != nil {
				t.Fatal(err)
			}
			if got[acct.ID] != s.balance || rebuilt.Balances[acct.ID] != s.balance {
				t.Fatalf("step %d as of %s: store %+v, engine %+v, observed %+v", i, instant, got[acct.ID], rebuilt.Balances[acct.ID], s.balance)
			}
		}
	}
	var before map[string]ledger.Balance
	inTx(t, func(ctx context.Context, tx ports.Tx) error {
		var err error
		before, err = tx.LedgerReports().BalancesAsOf(ctx, []string{acct.ID}, base.Add(-time.Millisecond))
		return err
	})
	if before[acct.ID] != (ledger.Balance{}) {
		t.Fatalf("before the first transfer: %+v", before[acct.ID])
	}
	// A transfer decided with an earlier clock still lands after the account's last transfer.
	var late ledger.Transfer
	inTx(t, func(ctx context.Context, tx ports.Tx) error {
		var err error
		late, _, err = tx.Ledger().Post(ctx, base.Add(-time.Hour), moveSpec(ref("asof-late"), world.ID, acct.ID, 1))
		return err
	})
	if last := history[len(history)-1].CreatedAt; late.CreatedAt.Before(last) {
		t.Fatalf("late transfer created at %s, before the account's last transfer at %s", late.CreatedAt, last)
	}
}

// TestStore_RandomWorkload runs concurrent random transfers, holds, posts, voids and
// reversals, then checks that the tenant's trial balance sums to zero and that the whole
// ledger verifies: every chain, every recorded delta and balance-after, every balance row.
func TestStore_RandomWorkload(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, m mode) {
		tenantID := newTenantID()
		specs := []ledger.AccountSpec{
			ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, tenantID),
			ledger.OfframpLocked(core.EnvTest, ledger.AssetUSDC, tenantID, "ofp_a_"+m.name+"_"+tenantID),
			ledger.ClaimEscrow(core.EnvTest, ledger.AssetUSDC, tenantID, "clm_a_"+m.name+"_"+tenantID),
			ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, newTenantID()),
			ledger.PlatformFees(core.EnvTest, ledger.AssetUSDC),
			ledger.World(core.EnvTest, ledger.AssetUSDC, "random-workload"),
		}
		accts := m.open(t, specs...)
		world := accts[len(accts)-1]
		for _, a := range accts[:len(accts)-1] {
			m.mustPost(t, moveSpec(ref("seed"), world.ID, a.ID, usd(1000)))
		}
		var wg sync.WaitGroup
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func(seed uint64) {
				defer wg.Done()
				randomWork(t, m, rand.New(rand.NewPCG(seed, 7)), accts, 40)
			}(uint64(w))
		}
		wg.Wait()

		tb, err := env().Service.Finance.LedgerTrialBalance(context.Background(), financePrincipal(tenantID))
		if err != nil {
			t.Fatal(err)
		}
		if len(tb.Assets) != 1 || !tb.Assets[0].Totals.Balanced() || tb.Assets[0].Totals.PostedCredits == 0 {
			t.Fatalf("trial balance %+v", tb)
		}
		v, err := postgres.VerifyLedger(context.Background(), m.s.DB())
		if err != nil {
			t.Fatal(err)
		}
		if !v.OK() || v.Transfers < 100 {
			t.Fatalf("verify: %+v", v)
		}
	})
}

// randomWork posts n random operations between accts; refusals (insufficient funds, a hold
// already resolved by another worker) are expected and ignored.
func randomWork(t *testing.T, m mode, r *rand.Rand, accts []ledger.Account, n int) {
	var holds, posted []string
	for i := 0; i < n; i++ {
		from, to := accts[r.IntN(len(accts))], accts[r.IntN(len(accts))]
		if from.ID == to.ID {
			continue
		}
		amount := int64(1 + r.IntN(50_000_000))
		var spec ledger.TransferSpec
		switch op := r.IntN(10); {
		case op < 4:
			spec = moveSpec(ref("rw"), from.ID, to.ID, amount)
		case op < 6:
			spec = ledger.TransferSpec{Reference: ref("rw-hold"), Type: ledger.TypePending, Environment: core.EnvTest,
				Asset: ledger.AssetUSDC, Postings: ledger.Move(from.ID, to.ID, amount)}
		case op < 8 && len(holds) > 0:
			spec = ledger.TransferSpec{Reference: ref("rw-post"), Type: ledger.TypePostPending, Environment: core.EnvTest,
				PendingID: holds[r.IntN(len(holds))], Amount: 1 + int64(r.IntN(1000))}
		case op < 9 && len(holds) > 0:
			spec = ledger.TransferSpec{Reference: ref("rw-void"), Type: ledger.TypeVoidPending, Environment: core.EnvTest, PendingID: holds[r.IntN(len(holds))]}
		case len(posted) > 0:
			spec = ledger.TransferSpec{Reference: ref("rw-reverse"), Type: ledger.TypeReversal, Environment: core.EnvTest, ReversedID: posted[r.IntN(len(posted))]}
		default:
			continue
		}
		tr, _, err := m.post(spec)
		switch {
		case err == nil && tr.Type == ledger.TypePending:
			holds = append(holds, tr.ID)
		case err == nil && (tr.Type == ledger.TypePosted || tr.Type == ledger.TypePostPending):
			posted = append(posted, tr.ID)
		case err == nil, errors.Is(err, core.ErrInsufficientFunds), errors.Is(err, core.ErrInvalidState):
		default:
			t.Errorf("%s: %v", spec.Type, err)
		}
	}
}

// financePrincipal is a TEST API key of tenantID holding treasury:read.
func financePrincipal(tenantID string) auth.Principal {
	return auth.Principal{Kind: auth.KindAPIKey, TenantID: tenantID, Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeTreasuryRead}}
}
