package ledger

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// TestStore_ConcurrentSpend: 64 goroutines each spend from one balance that covers exactly N of
// them. Exactly N succeed, the others get INSUFFICIENT_FUNDS, and the final balance is exact.
func TestStore_ConcurrentSpend(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, m mode) {
		const workers, covered, spend = 64, 23, 1_250_000
		payer, world := m.fund(t, newTenantID(), covered*spend+999) // 999 base units short of one more
		payee := m.open(t, ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, newTenantID()))[0]
		var ok, refused atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := 0; i < workers; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, _, err := m.post(moveSpec(ref("spend"), payer.ID, payee.ID, spend))
				switch {
				case err == nil:
					ok.Add(1)
				case errors.Is(err, core.ErrInsufficientFunds):
					refused.Add(1)
				default:
					t.Errorf("unexpected error: %v", err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if ok.Load() != covered || refused.Load() != workers-covered {
			t.Fatalf("%d succeeded and %d were refused; want %d and %d", ok.Load(), refused.Load(), covered, workers-covered)
		}
		b := m.balances(t, payer.ID, payee.ID, world.ID)
		if b[payer.ID] != (ledger.Balance{Posted: 999}) || b[payee.ID].Posted != covered*spend || b[world.ID].Posted != -(covered*spend+999) {
			t.Fatalf("final balances %+v", b)
		}
	})
}

// TestStore_ConcurrentSameReference: 32 concurrent posts of one reference create one transfer;
// the other 31 are replays of it.
func TestStore_ConcurrentSameReference(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, m mode) {
		payer, _ := m.fund(t, newTenantID(), usd(100))
		payee := m.open(t, ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, newTenantID()))[0]
		spec := moveSpec(ref("once"), payer.ID, payee.ID, usd(7))
		const workers = 32
		ids := make([]string, workers)
		replays := make([]bool, workers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := 0; i < workers; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				tr, replayed, err := m.post(spec)
				if err != nil {
					t.Errorf("post: %v", err)
					return
				}
				ids[i], replays[i] = tr.ID, replayed
			}(i)
		}
		close(start)
		wg.Wait()
		firsts := 0
		for i := range ids {
			if ids[i] != ids[0] {
				t.Fatalf("post %d returned transfer %s, post 0 returned %s", i, ids[i], ids[0])
			}
			if !replays[i] {
				firsts++
			}
		}
		if firsts != 1 {
			t.Fatalf("%d posts created the transfer, want exactly 1", firsts)
		}
		if b := m.balances(t, payer.ID, payee.ID); b[payer.ID].Posted != usd(93) || b[payee.ID].Posted != usd(7) {
			t.Fatalf("balances %+v: the transfer moved money more than once", b)
		}
		// When the first post takes the whole balance, the twins that waited for its locks still
		// answer as replays rather than INSUFFICIENT_FUNDS.
		exact, _ := m.fund(t, newTenantID(), usd(5))
		whole := moveSpec(ref("whole"), exact.ID, payee.ID, usd(5))
		var replayed atomic.Int64
		for i := 0; i < 16; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, r, err := m.post(whole)
				if err != nil {
					t.Errorf("post of the whole balance: %v", err)
				}
				if r {
					replayed.Add(1)
				}
			}()
		}
		wg.Wait()
		if replayed.Load() != 15 {
			t.Fatalf("%d of 16 posts were replays, want 15", replayed.Load())
		}
		// The same reference with other content is a conflict, not a replay.
		other := moveSpec(spec.Reference, payer.ID, payee.ID, usd(8))
		if _, _, err := m.post(other); !errors.Is(err, core.ErrReferenceConflict) {
			t.Fatalf("same reference, other amount: %v, want LEDGER_REFERENCE_CONFLICT", err)
		}
	})
}

// TestStore_HoldPostVoid walks the two-phase lifecycle over the real store: a hold reserves
// available funds, a partial post moves part and releases the rest, a void releases another
// hold, a reversal negates a posted transfer, and resolved holds refuse a second resolution.
func TestStore_HoldPostVoid(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, m mode) {
		payer, _ := m.fund(t, newTenantID(), usd(100))
		payee := m.open(t, ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, newTenantID()))[0]
		hold := func(amount int64) ledger.Transfer {
			return m.mustPost(t, ledger.TransferSpec{Reference: ref("hold"), Type: ledger.TypePending, Environment: core.EnvTest,
				Asset: ledger.AssetUSDC, Postings: ledger.Move(payer.ID, payee.ID, amount), ExpiresAt: time.Now().Add(time.Hour)})
		}
		h1 := hold(usd(60))
		if b := m.balances(t, payer.ID)[payer.ID]; b.Available() != usd(40) || b.PendingDebits != usd(60) || b.Posted != usd(100) {
			t.Fatalf("after a 60 hold: %+v", b)
		}
		// The hold counts: 50 more does not fit in the 40 still available.
		if _, _, err := m.post(moveSpec(ref("too-much"), payer.ID, payee.ID, usd(50))); !errors.Is(err, core.ErrInsufficientFunds) {
			t.Fatalf("spend beyond available: %v, want INSUFFICIENT_FUNDS", err)
		}
		h2 := hold(usd(30))
		postRef := ref("post")
		posted := m.mustPost(t, ledger.TransferSpec{Reference: postRef, Type: ledger.TypePostPending, Environment: core.EnvTest, PendingID: h1.ID, Amount: usd(45)})
		m.mustPost(t, ledger.TransferSpec{Reference: ref("void"), Type: ledger.TypeVoidPending, Environment: core.EnvTest, PendingID: h2.ID})
		b := m.balances(t, payer.ID, payee.ID)
		if b[payer.ID] != (ledger.Balance{Posted: usd(55)}) || b[payee.ID] != (ledger.Balance{Posted: usd(45)}) {
			t.Fatalf("after post 45 of 60 and void of 30: %+v", b)
		}
		// Replaying the post is a no-op that returns it; posting the hold again is INVALID_STATE.
		if again, replayed, err := m.post(ledger.TransferSpec{Reference: postRef, Type: ledger.TypePostPending, Environment: core.EnvTest, PendingID: h1.ID, Amount: usd(45)}); err != nil || !replayed || again.ID != posted.ID {
			t.Fatalf("replay of the post: %v %v %v", again.ID, replayed, err)
		}
		if _, _, err := m.post(ledger.TransferSpec{Reference: ref("post-again"), Type: ledger.TypePostPending, Environment: core.EnvTest, PendingID: h1.ID, Amount: 1}); !errors.Is(err, core.ErrInvalidState) {
			t.Fatalf("second post of a hold: %v, want INVALID_STATE", err)
		}
		m.mustPost(t, ledger.TransferSpec{Reference: ref("reverse"), Type: ledger.TypeReversal, Environment: core.EnvTest, ReversedID: posted.ID})
		if b := m.balances(t, payer.ID, payee.ID); b[payer.ID].Posted != usd(100) || b[payee.ID].Posted != 0 {
			t.Fatalf("after reversal: %+v", b)
		}
		var states [3]ledger.TransferState
		m.inTx(t, func(ctx context.Context, tx ports.Tx) error {
			for i, id := range []string{h1.ID, h2.ID, posted.ID} {
				st, err := tx.Ledger().Transfer(ctx, core.EnvTest, payer.Home(), id)
				if err != nil {
					return err
				}
				states[i] = st.State
			}
			return nil
		})
		if states[0].Status != ledger.StatusPosted || states[1].Status != ledger.StatusVoided || states[2].Status != ledger.StatusReversed {
			t.Fatalf("states %+v", states)
		}
		if _, _, err := m.post(ledger.TransferSpec{Reference: ref("void-missing"), Type: ledger.TypeVoidPending, Environment: core.EnvTest, PendingID: core.NewID(core.PrefixTransfer)}); !errors.Is(err, core.ErrTransferNotFound) {
			t.Fatalf("void of an unknown hold: %v", err)
		}
	})
}

// TestStore_UnitOfWork: a use case changes business state and posts through tx.Ledger() in one
// InTx; when any step fails, neither the business change nor the ledger write survives.
func TestStore_UnitOfWork(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, m mode) {
		payer, _ := m.fund(t, newTenantID(), usd(10))
		payee := m.open(t, ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, newTenantID()))[0]
		newTenant := func() tenant.Tenant {
			id := core.NewID(core.PrefixTenant)
			return tenant.Tenant{ID: id, Slug: "uow-" + core.RandomToken(5), Name: "UoW", OwnerUserID: "usr_" + id, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
		}
		tenantExists := func(id string) bool {
			found := false
			m.inTx(t, func(ctx context.Context, tx ports.Tx) error {
				_, err := tx.Tenants().FindTenant(ctx, id)
				found = err == nil
				return nil
			})
			return found
		}
		transferExists := func(reference string) bool { return countTransfers(t, reference) == 1 }
		boom := errors.New("business step failed")

		t.Run("business failure after the post rolls the post back", func(t *testing.T) {
			biz, reference := newTenant(), ref("uow-rollback")
			err := m.s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
				if err := tx.Tenants().CreateTenant(ctx, biz); err != nil {
					return err
				}
				if _, _, err := tx.Ledger().Post(ctx, time.Now(), moveSpec(reference, payer.ID, payee.ID, usd(4))); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatalf("InTx: %v", err)
			}
			if tenantExists(biz.ID) || transferExists(reference) {
				t.Fatal("a rolled-back unit of work left its tenant or its transfer behind")
			}
			if b := m.balances(t, payer.ID)[payer.ID]; b.Posted != usd(10) {
				t.Fatalf("payer balance %+v after rollback", b)
			}
		})
		t.Run("refused post rolls the business change back", func(t *testing.T) {
			biz := newTenant()
			err := m.s.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
				if err := tx.Tenants().CreateTenant(ctx, biz); err != nil {
					return err
				}
				_, _, err := tx.Ledger().Post(ctx, time.Now(), moveSpec(ref("uow-refused"), payer.ID, payee.ID, usd(11)))
				return err
			})
			if !errors.Is(err, core.ErrInsufficientFunds) || tenantExists(biz.ID) {
				t.Fatalf("InTx: %v; tenant kept: %v", err, tenantExists(biz.ID))
			}
		})
		t.Run("both commit together", func(t *testing.T) {
			biz, reference := newTenant(), ref("uow-commit")
			m.inTx(t, func(ctx context.Context, tx ports.Tx) error {
				if err := tx.Tenants().CreateTenant(ctx, biz); err != nil {
					return err
				}
				_, _, err := tx.Ledger().Post(ctx, time.Now(), moveSpec(reference, payer.ID, payee.ID, usd(3)))
				return err
			})
			if !tenantExists(biz.ID) || !transferExists(reference) {
				t.Fatal("a committed unit of work lost its tenant or its transfer")
			}
		})
		t.Run("a refusal leaves the transaction usable", func(t *testing.T) {
			biz := newTenant()
			m.inTx(t, func(ctx context.Context, tx ports.Tx) error {
				if _, _, err := tx.Ledger().Post(ctx, time.Now(), moveSpec(ref("uow-usable"), payer.ID, payee.ID, usd(1000))); !errors.Is(err, core.ErrInsufficientFunds) {
					t.Errorf("post: %v", err)
				}
				return tx.Tenants().CreateTenant(ctx, biz) // the use case records the refusal and goes on
			})
			if !tenantExists(biz.ID) {
				t.Fatal("work after a refused post was lost")
			}
		})
	})
}

// TestStore_OpenAccounts: opening is get-or-create, safe under concurrency, and refuses the
// same reference with another spec.
func TestStore_OpenAccounts(t *testing.T) {
	t.Parallel()
	spec := ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, newTenantID())
	const workers = 16
	ids := make([]string, workers)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			err := store().InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
				accts, err := tx.Ledger().OpenAccounts(ctx, time.Now(), spec)
				if err == nil {
					ids[i] = accts[0].ID
				}
				return err
			})
			if err != nil {
				t.Errorf("open: %v", err)
			}
		}(i)
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] || id == "" {
			t.Fatalf("concurrent opens returned %v", ids)
		}
	}
	clash := spec
	clash.NonNegative = false
	err := store().InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		_, err := tx.Ledger().OpenAccounts(ctx, time.Now(), clash)
		return err
	})
	if !errors.Is(err, core.ErrReferenceConflict) {
		t.Fatalf("same reference, other spec: %v", err)
	}
}
