package portstest

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

// CheckoutRepo is the contract of ports.CheckoutRepo: checkouts list newest first (by status
// too), are the tenant's (a payment's PAYMENT_NOT_FOUND elsewhere) yet public by id, updates write the
// amounts and status, the watcher reads those still watched after a cursor, and refunds list
// oldest first and add up in the tenant's windows.
func CheckoutRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"checkouts list newest first, scoped, public by id; updates write", checkoutCRUD},
		{"refunds list oldest first and add up in the windows", checkoutRefunds},
		{"a deposit address is one checkout's, across tenants", checkoutDepositUnique},
	})
}

func newCheckout(tenantID string, at time.Time) checkout.Checkout {
	return checkout.Checkout{ID: core.NewID(checkout.PrefixCheckout), TenantID: tenantID, Environment: core.EnvTest, ChainID: 84532,
		Amount: 500, Currency: "USD", Cryptocurrency: "USDC", DepositAddress: randomAddress(), StartBlock: 7,
		Status: checkout.StatusCreated, ExpiresAt: at.Add(time.Hour), WatchUntil: at.Add(2 * time.Hour), CreatedAt: at, UpdatedAt: at}
}

func checkoutCRUD(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	at := ledgerNow()
	a, b := newCheckout(tn.ID, at.Add(-time.Second)), newCheckout(tn.ID, at)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateCheckout", tx.Checkouts().CreateCheckout(ctx, a))
		return tx.Checkouts().CreateCheckout(ctx, b)
	})
	done := at.Add(time.Minute)
	a.Status, a.Received, a.Credited, a.CompletedAt, a.PayerAddress = checkout.StatusCompleted, 500, 500, &done, randomAddress()
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Checkouts().UpdateCheckout(ctx, a) })
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		q := ports.CheckoutQuery{TenantID: tn.ID, Environment: core.EnvTest}
		list, total, err := tx.Checkouts().ListCheckouts(ctx, q, ports.Page{Take: 10})
		wantTotal(t, "ListCheckouts", total, 2)
		wantIDs(t, "ListCheckouts", ids(list, func(c checkout.Checkout) string { return c.ID }), []string{b.ID, a.ID})
		q.Status = checkout.StatusCompleted
		list, _, err2 := tx.Checkouts().ListCheckouts(ctx, q, ports.Page{Take: 10})
		wantIDs(t, "ListCheckouts COMPLETED", ids(list, func(c checkout.Checkout) string { return c.ID }), []string{a.ID})
		_, err3 := tx.Checkouts().FindCheckout(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err3, safepay.CodePaymentNotFound)
		got, err4 := tx.Checkouts().FindPublicCheckout(ctx, a.ID)
		if got.Status != checkout.StatusCompleted || got.Credited != 500 || got.CompletedAt == nil || got.PayerAddress != a.PayerAddress {
			t.Errorf("FindPublicCheckout after UpdateCheckout = %+v", got)
		}
		_, err5 := tx.Checkouts().LockCheckout(ctx, tn.ID, core.NewID(checkout.PrefixCheckout))
		wantCode(t, err5, safepay.CodePaymentNotFound)
		_, err8 := tx.Checkouts().LockCheckout(ctx, other.ID, a.ID)
		wantCode(t, err8, safepay.CodePaymentNotFound)
		locked, err9 := tx.Checkouts().LockCheckout(ctx, tn.ID, a.ID)
		if err9 != nil || locked.Status != checkout.StatusCompleted {
			t.Errorf("LockCheckout of the tenant's own = %+v, %v", locked, err9)
		}
		watched, err6 := tx.Checkouts().ListWatched(ctx, core.EnvTest, at, a.ID, 10_000)
		if !containsString(ids(watched, func(c checkout.Checkout) string { return c.ID }), b.ID) {
			t.Error("ListWatched after a's id does not list b")
		}
		late, err7 := tx.Checkouts().ListWatched(ctx, core.EnvTest, at.Add(3*time.Hour), "", 10_000)
		if containsString(ids(late, func(c checkout.Checkout) string { return c.ID }), a.ID) {
			t.Error("ListWatched lists a completed checkout past its watch")
		}
		return firstErr(err, err2, err4, err6, err7)
	})
}

func checkoutRefunds(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	c := newCheckout(tn.ID, ledgerNow())
	c.Status, c.Received, c.Credited = checkout.StatusCompleted, 500, 500
	refund := func(amount int64) checkout.Refund {
		return checkout.Refund{ID: core.NewID(checkout.PrefixRefund), CheckoutID: c.ID, TenantID: tn.ID, Environment: core.EnvTest,
			Amount: amount, Destination: randomAddress(), Status: checkout.RefundPending, CreatedAt: ledgerNow(), UpdatedAt: ledgerNow()}
	}
	r1, r2 := refund(100), refund(50)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateCheckout", tx.Checkouts().CreateCheckout(ctx, c))
		noErr(t, "CreateRefund", tx.Checkouts().CreateRefund(ctx, r1))
		noErr(t, "CreateRefund", tx.Checkouts().CreateRefund(ctx, r2))
		r1.Status, r1.TxHash = checkout.RefundProcessed, "0x"+suffix(t)
		return tx.Checkouts().UpdateRefund(ctx, r1)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		list, err := tx.Checkouts().ListRefunds(ctx, tn.ID, c.ID)
		wantIDs(t, "ListRefunds", ids(list, func(r checkout.Refund) string { return r.ID }), []string{r1.ID, r2.ID})
		if len(list) == 2 && (list[0].Status != checkout.RefundProcessed || list[0].TxHash != r1.TxHash) {
			t.Errorf("after UpdateRefund = %+v", list[0])
		}
		if theirs, err := tx.Checkouts().ListRefunds(ctx, other.ID, c.ID); err != nil || len(theirs) != 0 {
			t.Errorf("ListRefunds by another tenant = %d refunds, %v; want none", len(theirs), err)
		}
		sp, err2 := tx.Checkouts().RefundedInWindows(ctx, core.EnvTest, tn.ID, policy.WindowsAt(ledgerNow()))
		if sp.Daily != 150 || sp.Weekly != 150 || sp.Monthly != 150 {
			t.Errorf("RefundedInWindows = %+v, want 150 in each", sp)
		}
		return firstErr(err, err2)
	})
}

// checkoutDepositUnique: a deposit address already given to one tenant's checkout is refused
// for another tenant's, and the refused unit writes nothing.
func checkoutDepositUnique(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	a := newCheckout(tn.ID, ledgerNow())
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Checkouts().CreateCheckout(ctx, a) })
	b := newCheckout(other.ID, ledgerNow())
	b.DepositAddress = a.DepositAddress
	if err := unitErr(s, func(ctx context.Context, tx ports.Tx) error { return tx.Checkouts().CreateCheckout(ctx, b) }); err == nil {
		t.Fatal("a second checkout with the same deposit address was stored")
	}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		_, err := tx.Checkouts().FindPublicCheckout(ctx, b.ID)
		wantCode(t, err, safepay.CodePaymentNotFound)
		return nil
	})
}
