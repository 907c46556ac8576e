package portstest

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// WalletActivityRepo is the contract of ports.WalletActivityRepo: a tenant's Safe transfers
// (CREATED shown as AWAITING_SIGNATURE), its wallets' mirror lines (an outgoing line already
// shown as its executed Safe payment left out), completed checkouts and refunds merge newest
// first with a total, filter by wallet, type and status, and another tenant sees none of them.
func WalletActivityRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{{"the sources merge newest first, filter, and stay the tenant's", walletActivityMerge}})
}

func walletActivityMerge(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	w := newWallet(t, s, tn.ID, core.EnvTest)
	base := ledgerNow().Add(-time.Hour)
	proposed, executed := newPayment(w, 0, safepay.StatusCreated), newPayment(w, 1, safepay.StatusCompleted)
	proposed.CreatedAt, executed.CreatedAt, executed.ExecutedTxHash = base, base.Add(time.Minute), "0x"+suffix(t)
	chk := newCheckout(tn.ID, base)
	done := base.Add(5 * time.Minute)
	chk.Status, chk.Received, chk.Credited, chk.CompletedAt, chk.PayerAddress = checkout.StatusCompleted, 500, 500, &done, randomAddress()
	var received, sent ledger.Transfer
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreatePayment", tx.Payments().CreatePayment(ctx, proposed))
		noErr(t, "CreatePayment", tx.Payments().CreatePayment(ctx, executed))
		noErr(t, "CreateCheckout", tx.Checkouts().CreateCheckout(ctx, chk))
		accs, err := tx.Ledger().OpenAccounts(ctx, base, ledger.WalletOnchain(core.EnvTest, ledger.AssetUSDC, tn.ID, w.ID),
			ledger.World(core.EnvTest, ledger.AssetUSDC, "activity-"+tn.ID))
		noErr(t, "OpenAccounts", err)
		in := move("activity:in:"+w.ID, accs[1].ID, accs[0].ID, 700)
		in.Metadata = map[string]string{"txHash": "0x" + suffix(t), "from": randomAddress()}
		received, _, err = tx.Ledger().Post(ctx, base.Add(2*time.Minute), in)
		noErr(t, "Post in", err)
		out := move("activity:out:"+w.ID, accs[0].ID, accs[1].ID, 100)
		out.Metadata = map[string]string{"txHash": executed.ExecutedTxHash, "to": executed.DestinationAddress}
		sent, _, err = tx.Ledger().Post(ctx, base.Add(3*time.Minute), out)
		return err
	})
	list := func(q ports.ActivityQuery) ([]string, int) {
		var rows []ports.WalletActivity
		var total int
		unit(t, s, func(ctx context.Context, tx ports.Tx) (err error) {
			rows, total, err = tx.WalletActivity().ListWalletActivity(ctx, q, ports.Page{Take: 20})
			return err
		})
		for _, r := range rows {
			if r.ID == proposed.ID && r.Status != string(safepay.StatusAwaitingSignature) {
				t.Errorf("a CREATED payment shows as %s", r.Status)
			}
			if r.ID == received.ID && (r.Type != "payment" || r.AmountBaseUnits != 700 || r.WalletID != w.ID) {
				t.Errorf("mirror line = %+v", r)
			}
		}
		return ids(rows, func(r ports.WalletActivity) string { return r.ID }), total
	}
	q := ports.ActivityQuery{TenantID: tn.ID, Environment: core.EnvTest}
	got, total := list(q)
	wantTotal(t, "ListWalletActivity", total, 4)
	wantIDs(t, "ListWalletActivity", got, []string{chk.ID, received.ID, executed.ID, proposed.ID})
	if containsString(got, sent.ID) {
		t.Error("an outgoing mirror line shows beside its executed Safe payment")
	}
	q.WalletID = w.ID
	got, _ = list(q)
	wantIDs(t, "ListWalletActivity of the wallet", got, []string{received.ID, executed.ID, proposed.ID})
	q.Type = "withdrawal"
	got, _ = list(q)
	wantIDs(t, "ListWalletActivity withdrawals", got, []string{executed.ID, proposed.ID})
	got, total = list(ports.ActivityQuery{TenantID: other.ID, Environment: core.EnvTest})
	if total != 0 || len(got) != 0 {
		t.Errorf("another tenant sees %d rows", total)
	}
}
