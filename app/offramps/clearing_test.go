package offramps

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// TestClearingOf_FindsTheMoneyWhereTheSubmissionLeftIt: a payment submitted before clearing
// was split per tenant (its submission credited the platform clearing account proper) is
// delivered or refunded from there; one submitted since, from the sender's share; one not
// submitted yet will be, to the share.
func TestClearingOf_FindsTheMoneyWhereTheSubmissionLeftIt(t *testing.T) {
	ctx := context.Background()
	store := fake.NewStore()
	now := time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)
	pay := func() offramp.Payment {
		return offramp.Payment{ID: core.NewID(core.PrefixOffRamp), Environment: core.EnvTest, SenderTenantID: core.NewID(core.PrefixTenant),
			Provider: "internal", Attempt: 1}
	}
	platform := func(p offramp.Payment) ledger.AccountSpec {
		return ledger.ProviderClearing(p.Environment, kernel.ServiceAsset, p.Provider)
	}
	submit := func(p offramp.Payment, to ledger.AccountSpec) {
		t.Helper()
		err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			// From the sender's locked account, as a submission is: the transfer's home is the sender.
			accs, err := tx.Ledger().OpenAccounts(ctx, now, ledger.OfframpLocked(p.Environment, kernel.ServiceAsset, p.SenderTenantID, p.ID), to,
				ledger.World(p.Environment, kernel.ServiceAsset, "test"))
			if err != nil {
				return err
			}
			if _, _, err := tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: p.LedgerRef("lock", p.Attempt), Type: ledger.TypePosted,
				Environment: p.Environment, Asset: kernel.ServiceAsset, Postings: ledger.Move(accs[2].ID, accs[0].ID, 5)}.MustValidate()); err != nil {
				return err
			}
			_, _, err = tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: p.LedgerRef("submit", p.Attempt), Type: ledger.TypePosted,
				Environment: p.Environment, Asset: kernel.ServiceAsset, Postings: ledger.Move(accs[0].ID, accs[1].ID, 5)}.MustValidate())
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	before, since, notYet := pay(), pay(), pay()
	submit(before, platform(before))
	submit(since, clearingShare(since))
	for _, tc := range []struct {
		name string
		p    offramp.Payment
		want ledger.AccountSpec
	}{
		{"submitted before the split", before, platform(before)},
		{"submitted since", since, clearingShare(since)},
		{"not submitted yet", notYet, clearingShare(notYet)},
	} {
		err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			got, err := clearingOf(ctx, tx, tc.p)
			if err == nil && got != tc.want {
				t.Errorf("%s: clearing %s, want %s", tc.name, got.Reference, tc.want.Reference)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
