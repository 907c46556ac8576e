package ledger

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// shareWorld is a private ledger with two tenants whose deposits come from their shares of
// the sandbox pool, and tenant a's fees go to its share of the platform's fees.
type shareWorld struct {
	privateLedger
	accounts map[string]ledger.Account // by reference
	a, b     string
}

func newShareWorld(t *testing.T) shareWorld {
	t.Helper()
	w := shareWorld{privateLedger: newPrivateLedger(t), accounts: map[string]ledger.Account{}}
	w.a, w.b = w.twoBuckets(t)
	specs := []ledger.AccountSpec{
		ledger.PlatformSandboxPool(core.EnvTest, ledger.AssetUSDC), ledger.PlatformFees(core.EnvTest, ledger.AssetUSDC),
	}
	for _, tenant := range []string{w.a, w.b} {
		specs = append(specs, ledger.Share(ledger.PlatformSandboxPool(core.EnvTest, ledger.AssetUSDC), tenant),
			ledger.Share(ledger.PlatformFees(core.EnvTest, ledger.AssetUSDC), tenant),
			ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, tenant))
	}
	w.in(t, func(ctx context.Context, tx ports.Tx) error {
		accts, err := tx.Ledger().OpenAccounts(ctx, time.Now(), specs...)
		for _, a := range accts {
			w.accounts[a.Reference] = a
		}
		return err
	})
	return w
}

func (w shareWorld) in(t *testing.T, fn func(ctx context.Context, tx ports.Tx) error) {
	t.Helper()
	if err := w.store.InTx(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

func (w shareWorld) move(t *testing.T, from, to string, amount int64) {
	t.Helper()
	w.in(t, func(ctx context.Context, tx ports.Tx) error {
		_, _, err := tx.Ledger().Post(ctx, time.Now(), moveSpec(ref("share"), w.accounts[from].ID, w.accounts[to].ID, amount))
		return err
	})
}

// deposit credits tenant's service balance from its share of the sandbox pool.
func (w shareWorld) deposit(t *testing.T, tenant string, amount int64) {
	t.Helper()
	w.move(t, ledger.PlatformSandboxPoolRef+"@"+tenant, ledger.TenantAvailableRef(tenant), amount)
}

// posted reads the posted balances of the references given.
func (w shareWorld) posted(t *testing.T, refs ...string) []int64 {
	t.Helper()
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = w.accounts[r].ID
	}
	var out []int64
	w.in(t, func(ctx context.Context, tx ports.Tx) error {
		b, err := tx.Ledger().Balances(ctx, ids)
		for _, id := range ids {
			out = append(out, b[id].Posted)
		}
		return err
	})
	return out
}

func (w shareWorld) check(t *testing.T) postgres.InvariantCheck {
	t.Helper()
	rep, err := postgres.CheckInvariants(context.Background(), w.store.DB(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		if c.Name == "trial-balance-per-tenant" {
			return c
		}
	}
	t.Fatal("no trial-balance-per-tenant check")
	return postgres.InvariantCheck{}
}

// TestSweep_SharesIntoPlatformAccounts: deposits and fees book on the tenants' shares of the
// platform accounts; the sweep moves every share's balance into its platform account, once
// (two sweeps at once move it once), and again only what arrived since; the ledger verifies,
// the trial balance holds per tenant group and in total, and a balance changed in one
// tenant's group is reported as that group's.
func TestSweep_SharesIntoPlatformAccounts(t *testing.T) {
	t.Parallel()
	w := newShareWorld(t)
	poolA, poolB := ledger.PlatformSandboxPoolRef+"@"+w.a, ledger.PlatformSandboxPoolRef+"@"+w.b
	feesA := ledger.PlatformFeesRef + "@" + w.a
	w.deposit(t, w.a, usd(10))
	w.deposit(t, w.a, usd(5))
	w.deposit(t, w.b, usd(7))
	w.move(t, ledger.TenantAvailableRef(w.a), feesA, usd(2))
	if c := w.check(t); !c.OK() {
		t.Fatalf("before the sweep: %+v", c)
	}
	svc, err := finance.New(finance.Deps{Store: w.store})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	swept := make([]int, 2)
	for i := range swept {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := svc.SweepShares(context.Background())
			if err != nil {
				t.Errorf("sweep: %v", err)
			}
			swept[i] = n
		}()
	}
	wg.Wait()
	if swept[0]+swept[1] != 3 {
		t.Fatalf("two sweeps at once moved %v shares, want 3 in all", swept)
	}
	got := w.posted(t, poolA, poolB, feesA, ledger.PlatformSandboxPoolRef, ledger.PlatformFeesRef)
	if want := []int64{0, 0, 0, -usd(22), usd(2)}; !equal(got, want) {
		t.Fatalf("after the sweep: shares and platform accounts %v, want %v", got, want)
	}
	if n, err := svc.SweepShares(context.Background()); err != nil || n != 0 {
		t.Fatalf("a sweep with nothing to move moved %d (%v)", n, err)
	}
	w.deposit(t, w.a, usd(1))
	if n, err := svc.SweepShares(context.Background()); err != nil || n != 1 {
		t.Fatalf("the next sweep moved %d shares (%v), want 1", n, err)
	}
	if got := w.posted(t, poolA, ledger.PlatformSandboxPoolRef); !equal(got, []int64{0, -usd(23)}) {
		t.Fatalf("after the second sweep: %v", got)
	}
	if v := w.verify(t); !v.OK() {
		t.Fatalf("verify: %+v", v)
	}
	if c := w.check(t); !c.OK() {
		t.Fatalf("after the sweeps: %+v", c)
	}
	w.exec(t, "UPDATE ledger_balances SET posted = posted + 1 WHERE account_id = ?", w.accounts[ledger.TenantAvailableRef(w.b)].ID)
	c := w.check(t)
	if c.OK() || !strings.Contains(strings.Join(c.Problems, "\n"), "tenant group "+w.b+", TEST USDC") {
		t.Fatalf("a balance changed in %s's group: %+v", w.b, c)
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
