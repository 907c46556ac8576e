package portstest

import (
	"context"
	"slices"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
)

// OfframpRepo is the contract of ports.OfframpRepo: a payment is found by its sender and its
// recipient only (OFFRAMP_PAYMENT_NOT_FOUND for a third tenant), lists newest first, is locked
// by its provider reference, and shows in the recipient's held list while held; top-ups,
// returns and provider events record once (also when units race for one key); review
// approvals add up; and the sender's window spend leaves out cancelled payments.
func OfframpRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"a payment is its sender's and recipient's, listed newest first", offrampPayments},
		{"held payments are listed for their recipient; reviews add up", offrampHolds},
		{"the sender's window spend leaves out cancelled and excluded payments", offrampSenderSpend},
		{"top-ups, returns and provider events record once, also when units race", offrampOnce},
	})
}

func newOfframpPayment(t *testing.T, sender string, amount int64) offramp.Payment {
	at := ledgerNow()
	return offramp.Payment{ID: core.NewID(core.PrefixOffRamp), Environment: core.EnvTest, SenderTenantID: sender,
		RecipientPhoneHash: "phone-" + suffix(t), RecipientPhoneMasked: "+1******1234", SourceChainKey: "base-sepolia",
		SourceAssetID: "usdc", SourceAmountBaseUnits: amount, FundingMode: "INTERNAL_BALANCE",
		SpeedPreference: offramp.SpeedFastest, Status: offramp.StatusPendingClaim, CreatedAt: at, UpdatedAt: at}
}

func createOfframp(t *testing.T, s ports.Store, ps ...offramp.Payment) {
	t.Helper()
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		for _, p := range ps {
			noErr(t, "CreatePayment", tx.Offramp().CreatePayment(ctx, p))
		}
		return nil
	})
}

func offrampPayments(t *testing.T, s ports.Store) {
	sender, recipient, stranger := newTenant(t, s), newTenant(t, s), newTenant(t, s)
	a, b := newOfframpPayment(t, sender.ID, 100), newOfframpPayment(t, sender.ID, 200)
	createOfframp(t, s, a, b)
	a.RecipientTenantID, a.Status, a.Provider, a.ProviderReference = recipient.ID, offramp.StatusProviderSubmitted, "mock", "ref-"+suffix(t)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Offramp().UpdatePayment(ctx, a) })
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		for _, tenantID := range []string{sender.ID, recipient.ID} {
			got, err := tx.Offramp().FindPayment(ctx, core.EnvTest, tenantID, a.ID)
			if err != nil || got.Status != offramp.StatusProviderSubmitted || got.SourceAmountBaseUnits != 100 {
				t.Errorf("FindPayment by %s = %+v, %v", tenantID, got, err)
			}
		}
		_, err := tx.Offramp().FindPayment(ctx, core.EnvTest, stranger.ID, a.ID)
		wantCode(t, err, offramp.CodePaymentNotFound)
		_, err = tx.Offramp().FindPayment(ctx, core.EnvLive, sender.ID, a.ID)
		wantCode(t, err, offramp.CodePaymentNotFound)
		got, err := tx.Offramp().LockPaymentByProviderReference(ctx, "mock", a.ProviderReference)
		if err != nil || got.ID != a.ID {
			t.Errorf("LockPaymentByProviderReference = %s, %v", got.ID, err)
		}
		list, total, err := tx.Offramp().ListPayments(ctx, ports.OfframpFilter{Environment: core.EnvTest, TenantID: sender.ID}, ports.Page{Take: 10})
		wantTotal(t, "ListPayments", total, 2)
		wantIDs(t, "ListPayments", ids(list, func(p offramp.Payment) string { return p.ID }), []string{b.ID, a.ID})
		list, _, err2 := tx.Offramp().ListPayments(ctx, ports.OfframpFilter{Environment: core.EnvTest, TenantID: recipient.ID}, ports.Page{Take: 10})
		wantIDs(t, "ListPayments as recipient", ids(list, func(p offramp.Payment) string { return p.ID }), []string{a.ID})
		return firstErr(err, err2)
	})
}

func offrampHolds(t *testing.T, s ports.Store) {
	sender, recipient := newTenant(t, s), newTenant(t, s)
	held, moving := newOfframpPayment(t, sender.ID, 100), newOfframpPayment(t, sender.ID, 100)
	held.RecipientTenantID, held.Status = recipient.ID, offramp.StatusComplianceHold
	held.HoldReasons = []offramp.HoldReason{offramp.HoldCredentialExpired}
	moving.RecipientTenantID, moving.Status = recipient.ID, offramp.StatusProviderSubmitted
	createOfframp(t, s, held, moving)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Offramp().HeldPaymentIDs(ctx, core.EnvTest, recipient.ID, 10)
		wantIDs(t, "HeldPaymentIDs", got, []string{held.ID})
		noErr(t, "ApproveReview", tx.Offramp().ApproveReview(ctx, held.ID, "op-1", []offramp.HoldReason{offramp.HoldCredentialExpired}, ledgerNow()))
		noErr(t, "ApproveReview", tx.Offramp().ApproveReview(ctx, held.ID, "op-2", []offramp.HoldReason{offramp.HoldCredentialRevoked}, ledgerNow()))
		reasons, err2 := tx.Offramp().ApprovedReviewReasons(ctx, held.ID)
		slices.Sort(reasons)
		if !slices.Equal(reasons, []offramp.HoldReason{offramp.HoldCredentialExpired, offramp.HoldCredentialRevoked}) {
			t.Errorf("ApprovedReviewReasons = %v, want both approvals", reasons)
		}
		none, err3 := tx.Offramp().ApprovedReviewReasons(ctx, moving.ID)
		if len(none) != 0 {
			t.Errorf("ApprovedReviewReasons of an unreviewed payment = %v", none)
		}
		return firstErr(err, err2, err3)
	})
}

func offrampSenderSpend(t *testing.T, s ports.Store) {
	sender := newTenant(t, s)
	a, b, cancelled, current := newOfframpPayment(t, sender.ID, 100), newOfframpPayment(t, sender.ID, 20),
		newOfframpPayment(t, sender.ID, 1000), newOfframpPayment(t, sender.ID, 5000)
	cancelled.Status = offramp.StatusCanceled
	createOfframp(t, s, a, b, cancelled, current)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		sp, err := tx.Offramp().SenderSpend(ctx, core.EnvTest, sender.ID, current.ID, policy.WindowsAt(ledgerNow()))
		if sp.Daily != 120 || sp.Weekly != 120 || sp.Monthly != 120 {
			t.Errorf("SenderSpend = %+v, want 120 in each window", sp)
		}
		return err
	})
}

func offrampOnce(t *testing.T, s ports.Store) {
	sender := newTenant(t, s)
	p := newOfframpPayment(t, sender.ID, 100)
	createOfframp(t, s, p)
	provider, ref, event := "prov-"+suffix(t), "topup-"+suffix(t), "evt-"+suffix(t)
	added := make([]bool, 4)
	for _, err := range concurrently(s, len(added), func(ctx context.Context, tx ports.Tx, i int) (err error) {
		added[i], err = tx.Offramp().TopUpLiquidity(ctx, core.EnvTest, provider, ref, 500, "op", ledgerNow())
		return err
	}) {
		noErr(t, "TopUpLiquidity", err)
	}
	if n := countTrue(added); n != 1 {
		t.Errorf("%d of 4 racing top-ups of one reference were added, want 1", n)
	}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		sum, err := tx.Offramp().LiquidityTopUps(ctx, core.EnvTest, provider)
		if sum != 500 {
			t.Errorf("LiquidityTopUps = %d, want 500", sum)
		}
		first, err2 := tx.Offramp().RecordReturn(ctx, p.ID, "trf_1", 100, ledgerNow())
		again, err3 := tx.Offramp().RecordReturn(ctx, p.ID, "trf_2", 100, ledgerNow())
		if !first || again {
			t.Errorf("RecordReturn = %v then %v, want true then false", first, again)
		}
		first, err4 := tx.Offramp().RecordProviderEvent(ctx, provider, event, ledgerNow())
		again, err5 := tx.Offramp().RecordProviderEvent(ctx, provider, event, ledgerNow())
		if !first || again {
			t.Errorf("RecordProviderEvent = %v then %v, want true then false", first, again)
		}
		return firstErr(err, err2, err3, err4, err5)
	})
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
