package portstest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

// OfframpRepo is the contract of ports.OfframpRepo: a payment is found by its sender and its
// recipient only (OFFRAMP_PAYMENT_NOT_FOUND for a third tenant), lists newest first, is locked
// by its provider reference, and shows in the recipient's held list while held; top-ups,
// returns and provider events record once (also when units race for one key); review
// approvals add up; the sender's window spend leaves out cancelled payments; a new quote set
// supersedes the old one and expired sets are due; held payments back off their rechecks.
func OfframpRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"a payment is its sender's and recipient's, listed newest first", offrampPayments},
		{"held payments are listed for their recipient; reviews add up", offrampHolds},
		{"the sender's window spend leaves out cancelled and excluded payments", offrampSenderSpend},
		{"top-ups, returns and provider events record once, also when units race", offrampOnce},
		{"quote sets supersede, the active set is found, expired sets are due", offrampQuotes},
		{"held payments back off their rechecks, reset and clear", offrampRechecks},
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
		noErr(t, "ApproveReview", tx.Offramp().ApproveReview(ctx, sender.ID, held.ID, "op-1", []offramp.HoldReason{offramp.HoldCredentialExpired}, ledgerNow()))
		noErr(t, "ApproveReview", tx.Offramp().ApproveReview(ctx, sender.ID, held.ID, "op-2", []offramp.HoldReason{offramp.HoldCredentialRevoked}, ledgerNow()))
		reasons, err2 := tx.Offramp().ApprovedReviewReasons(ctx, sender.ID, held.ID)
		slices.Sort(reasons)
		if !slices.Equal(reasons, []offramp.HoldReason{offramp.HoldCredentialExpired, offramp.HoldCredentialRevoked}) {
			t.Errorf("ApprovedReviewReasons = %v, want both approvals", reasons)
		}
		none, err3 := tx.Offramp().ApprovedReviewReasons(ctx, sender.ID, moving.ID)
		if len(none) != 0 {
			t.Errorf("ApprovedReviewReasons of an unreviewed payment = %v", none)
		}
		// The approvals are kept with the sender's rows: the recipient's name finds none.
		if other, _ := tx.Offramp().ApprovedReviewReasons(ctx, recipient.ID, held.ID); len(other) != 0 {
			t.Errorf("ApprovedReviewReasons under the recipient's tenant = %v, want none", other)
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
		first, err2 := tx.Offramp().RecordReturn(ctx, sender.ID, p.ID, "trf_1", 100, ledgerNow())
		again, err3 := tx.Offramp().RecordReturn(ctx, sender.ID, p.ID, "trf_2", 100, ledgerNow())
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

// offrampQuoteSet stores a destination of the recipient and n ACTIVE quotes of set version v.
func offrampQuoteSet(p offramp.Payment, destination string, v, n int, expires time.Time) []offramp.Quote {
	qs := make([]offramp.Quote, n)
	for i := range qs {
		qs[i] = offramp.Quote{ID: core.NewID(core.PrefixRouteQuote), PaymentID: p.ID, SetVersion: v, DestinationID: destination,
			DestinationType: recipient.DestOnchainWallet, Provider: "mock", SourceAmountBaseUnits: p.SourceAmountBaseUnits,
			SourceAssetID: "usdc", DestinationAmountMinor: 100, DestinationCurrency: "USD", ExchangeRate: "1",
			Status: offramp.QuoteActive, ExpiresAt: expires, CreatedAt: ledgerNow(), DeliverBaseUnits: p.SourceAmountBaseUnits - 1,
			FeeBaseUnits: 1}
	}
	return qs
}

func offrampQuotes(t *testing.T, s ports.Store) {
	sender, recipientTenant := newTenant(t, s), newTenant(t, s)
	p := newOfframpPayment(t, sender.ID, 100)
	p.RecipientTenantID, p.Status = recipientTenant.ID, offramp.StatusAwaitingRecipientConfirmation
	createOfframp(t, s, p)
	d := newDestination(recipientTenant.ID, recipient.DestOnchainWallet)
	past := ledgerNow().Add(-time.Minute)
	first, second := offrampQuoteSet(p, d.ID, 1, 2, past), offrampQuoteSet(p, d.ID, 2, 1, ledgerNow().Add(time.Hour))
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateDestination", tx.Recipients().CreateDestination(ctx, d))
		return tx.Offramp().InsertQuotes(ctx, sender.ID, first)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		due, err := tx.Offramp().ExpiredQuotePaymentIDs(ctx, ledgerNow(), 100_000)
		if !containsString(due, p.ID) {
			t.Error("ExpiredQuotePaymentIDs does not list a payment whose active quotes expired")
		}
		noErr(t, "SupersedeQuotes", tx.Offramp().SupersedeQuotes(ctx, sender.ID, p.ID, offramp.QuoteSuperseded))
		noErr(t, "InsertQuotes", tx.Offramp().InsertQuotes(ctx, sender.ID, second))
		active, err2 := tx.Offramp().ActiveQuotes(ctx, sender.ID, p.ID)
		wantIDs(t, "ActiveQuotes", ids(active, func(q offramp.Quote) string { return q.ID }), []string{second[0].ID})
		// Quotes are kept with the sender's rows, not the recipient's (whose destination they name).
		if other, _ := tx.Offramp().ActiveQuotes(ctx, recipientTenant.ID, p.ID); len(other) != 0 {
			t.Errorf("ActiveQuotes under the recipient's tenant = %d quotes, want none", len(other))
		}
		_, errOther := tx.Offramp().FindQuote(ctx, recipientTenant.ID, p.ID, second[0].ID)
		wantCode(t, errOther, offramp.CodeQuoteNotFound)
		old, err3 := tx.Offramp().FindQuote(ctx, sender.ID, p.ID, first[1].ID)
		if old.Status != offramp.QuoteSuperseded || old.DeliverBaseUnits+old.FeeBaseUnits != p.SourceAmountBaseUnits {
			t.Errorf("FindQuote of a superseded quote = %+v", old)
		}
		_, err4 := tx.Offramp().FindQuote(ctx, sender.ID, core.NewID(core.PrefixOffRamp), first[0].ID)
		wantCode(t, err4, offramp.CodeQuoteNotFound)
		due, _ = tx.Offramp().ExpiredQuotePaymentIDs(ctx, ledgerNow(), 100_000)
		if containsString(due, p.ID) {
			t.Error("ExpiredQuotePaymentIDs lists a payment whose active set is fresh")
		}
		return firstErr(err, err2, err3)
	})
}

func offrampRechecks(t *testing.T, s ports.Store) {
	sender, recipientTenant := newTenant(t, s), newTenant(t, s)
	held := newOfframpPayment(t, sender.ID, 100)
	held.RecipientTenantID, held.Status = recipientTenant.ID, offramp.StatusComplianceHold
	held.HoldReasons = []offramp.HoldReason{offramp.HoldCredentialSuspended}
	createOfframp(t, s, held)
	reasons := []offramp.HoldReason{offramp.HoldCredentialSuspended}
	now := ledgerNow()
	due := func(ctx context.Context, tx ports.Tx, at time.Time) bool {
		ids, err := tx.Offramp().RecheckDueHeldPaymentIDs(ctx, at, reasons, 100_000)
		noErr(t, "RecheckDueHeldPaymentIDs", err)
		return containsString(ids, held.ID)
	}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		if !due(ctx, tx, now) {
			t.Error("a held payment never rechecked is not due")
		}
		if ids, _ := tx.Offramp().RecheckDueHeldPaymentIDs(ctx, now, []offramp.HoldReason{offramp.HoldRecipientNotOnboarded}, 100_000); containsString(ids, held.ID) {
			t.Error("a payment is due for a reason it is not held on")
		}
		noErr(t, "BackOffHoldRecheck", tx.Offramp().BackOffHoldRecheck(ctx, sender.ID, held.ID, now, time.Minute, time.Hour))
		if due(ctx, tx, now.Add(30*time.Second)) || !due(ctx, tx, now.Add(time.Minute)) {
			t.Error("after one backoff the payment is not due exactly a minute on")
		}
		noErr(t, "BackOffHoldRecheck", tx.Offramp().BackOffHoldRecheck(ctx, sender.ID, held.ID, now, time.Minute, time.Hour))
		if due(ctx, tx, now.Add(90*time.Second)) || !due(ctx, tx, now.Add(2*time.Minute)) {
			t.Error("after two backoffs the payment is not due two minutes on")
		}
		noErr(t, "ResetHoldRechecks", tx.Offramp().ResetHoldRechecks(ctx, offramp.HoldCredentialSuspended))
		if !due(ctx, tx, now) {
			t.Error("a reset recheck is not due at once")
		}
		noErr(t, "BackOffHoldRecheck", tx.Offramp().BackOffHoldRecheck(ctx, sender.ID, held.ID, now, time.Minute, time.Hour))
		noErr(t, "ClearHoldRecheck", tx.Offramp().ClearHoldRecheck(ctx, sender.ID, held.ID))
		if !due(ctx, tx, now) {
			t.Error("a cleared recheck is not due at once")
		}
		return nil
	})
}
