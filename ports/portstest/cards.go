package portstest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ports"
)

// CardRepo is the contract of ports.CardRepo: cardholders, cards and authorizations list
// newest first and are scoped (their NOT_FOUND codes elsewhere), updates write status and
// limits, the expiry and settlement passes find what is theirs, and the window spend adds up
// with no update lost when units lock the card and add at once.
func CardRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"cardholders and cards list newest first, scoped; updates write", cardCRUD},
		{"authorizations list newest first; the expiry and settlement passes find them", cardAuthorizations},
		{"window spend adds up, none lost when units lock the card and add at once", cardSpendConcurrent},
		{"window spend rolls over per period; a credit to a rolled-over period takes nothing from the current one", cardSpendRollover},
	})
}

// newCard stores an active Safe-funded card of the tenant; adjust, when given, changes it first.
func newCard(t *testing.T, s ports.Store, tenantID string, adjust ...func(*card.Card)) card.Card {
	t.Helper()
	w := newWallet(t, s, tenantID, core.EnvTest)
	at := ledgerNow()
	c := card.Card{ID: core.NewID(core.PrefixCard), TenantID: tenantID, Environment: core.EnvTest, Funding: card.FundingSafe,
		WalletID: w.ID, SafeAddress: w.Address, Issuer: "sandbox", IssuerCardID: "ic_" + suffix(t), Last4: "4242",
		Status: card.StatusActive, Limits: card.Limits{BlockedMCC: []string{}}, CreatedAt: at, UpdatedAt: at}
	for _, f := range adjust {
		f(&c)
	}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Cards().CreateCard(ctx, c) })
	return c
}

func cardCRUD(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	h1 := card.Cardholder{ID: core.NewID(core.PrefixCardholder), TenantID: tn.ID, Environment: core.EnvTest, Name: "A", Email: "a@example.com", CreatedAt: ledgerNow()}
	h2 := h1
	h2.ID = core.NewID(core.PrefixCardholder)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateCardholder", tx.Cards().CreateCardholder(ctx, h1))
		return tx.Cards().CreateCardholder(ctx, h2)
	})
	a, b := newCard(t, s, tn.ID), newCard(t, s, tn.ID)
	daily := int64(900)
	a.Status, a.Limits.Daily, a.Limits.BlockedMCC = card.StatusInactive, &daily, []string{"5812"}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Cards().UpdateCard(ctx, a) })
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		hs, total, err := tx.Cards().ListCardholders(ctx, tn.ID, core.EnvTest, ports.Page{Take: 10})
		wantTotal(t, "ListCardholders", total, 2)
		wantIDs(t, "ListCardholders", ids(hs, func(h card.Cardholder) string { return h.ID }), []string{h2.ID, h1.ID})
		_, err2 := tx.Cards().FindCardholder(ctx, other.ID, core.EnvTest, h1.ID)
		wantCode(t, err2, card.CodeCardholderNotFound)
		cs, total, err3 := tx.Cards().ListCards(ctx, tn.ID, core.EnvTest, ports.Page{Take: 10})
		wantTotal(t, "ListCards", total, 2)
		wantIDs(t, "ListCards", ids(cs, func(c card.Card) string { return c.ID }), []string{b.ID, a.ID})
		got, err4 := tx.Cards().LockCard(ctx, tn.ID, core.EnvTest, a.ID)
		if got.Status != card.StatusInactive || got.Limits.Daily == nil || *got.Limits.Daily != 900 || len(got.Limits.BlockedMCC) != 1 {
			t.Errorf("after UpdateCard = %+v", got)
		}
		_, err5 := tx.Cards().FindCard(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err5, card.CodeCardNotFound)
		return firstErr(err, err3, err4)
	})
}

func newAuthorization(c card.Card, amount int64, at time.Time) card.Authorization {
	return card.Authorization{ID: core.NewID(core.PrefixCardAuth), TenantID: c.TenantID, Environment: c.Environment, CardID: c.ID,
		Amount: amount, MCC: "5411", MerchantName: "Shop", Status: card.AuthApproved, Windows: card.WindowsAt(at), CreatedAt: at, UpdatedAt: at}
}

func cardAuthorizations(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	c := newCard(t, s, tn.ID)
	old := ledgerNow().Add(-48 * time.Hour)
	open, captured := newAuthorization(c, 100, old), newAuthorization(c, 200, old.Add(time.Second))
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateAuthorization", tx.Cards().CreateAuthorization(ctx, open))
		return tx.Cards().CreateAuthorization(ctx, captured)
	})
	captured.Status, captured.CapturedAmount, captured.SettlementStatus, captured.UpdatedAt = card.AuthCaptured, 200, card.SettlementPending, old
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Cards().UpdateAuthorization(ctx, captured) })
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		list, total, err := tx.Cards().ListAuthorizations(ctx, tn.ID, c.ID, ports.Page{Take: 10})
		wantTotal(t, "ListAuthorizations", total, 2)
		wantIDs(t, "ListAuthorizations", ids(list, func(a card.Authorization) string { return a.ID }), []string{captured.ID, open.ID})
		_, err2 := tx.Cards().FindAuthorization(ctx, other.ID, core.EnvTest, open.ID)
		wantCode(t, err2, card.CodeAuthorizationNotFound)
		if _, n, _ := tx.Cards().ListAuthorizations(ctx, other.ID, c.ID, ports.Page{Take: 10}); n != 0 {
			t.Errorf("ListAuthorizations of another tenant's card = %d, want none", n)
		}
		_, errOther := tx.Cards().LockAuthorizationByID(ctx, other.ID, captured.ID)
		wantCode(t, errOther, card.CodeAuthorizationNotFound)
		approvals, err3 := tx.Cards().OpenApprovals(ctx, old.Add(time.Minute), 10_000)
		if !containsID(approvals, open.ID) || containsID(approvals, captured.ID) {
			t.Errorf("OpenApprovals does not list exactly the open approval")
		}
		stale, err4 := tx.Cards().StaleSettlements(ctx, old.Add(time.Minute), 10_000)
		if !slices.Contains(stale, ports.TenantRow{TenantID: tn.ID, ID: captured.ID}) ||
			slices.Contains(stale, ports.TenantRow{TenantID: tn.ID, ID: open.ID}) {
			t.Errorf("StaleSettlements does not list exactly the pending capture with its tenant")
		}
		got, err5 := tx.Cards().LockAuthorizationByID(ctx, tn.ID, captured.ID)
		if got.Status != card.AuthCaptured || got.CapturedAmount != 200 || got.SettlementStatus != card.SettlementPending {
			t.Errorf("after UpdateAuthorization = %+v", got)
		}
		return firstErr(err, err3, err4, err5)
	})
}

func containsID(as []card.Authorization, id string) bool {
	return containsString(ids(as, func(a card.Authorization) string { return a.ID }), id)
}

func cardSpendConcurrent(t *testing.T, s ports.Store) {
	c, other := newCard(t, s, newTenant(t, s).ID), newTenant(t, s)
	w := card.WindowsAt(ledgerNow())
	for _, err := range concurrently(s, 5, func(ctx context.Context, tx ports.Tx, _ int) error {
		if _, err := tx.Cards().LockCard(ctx, c.TenantID, c.Environment, c.ID); err != nil {
			return err
		}
		return tx.Cards().AddWindowSpend(ctx, c.TenantID, c.ID, w, 30)
	}) {
		noErr(t, "AddWindowSpend", err)
	}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "credit back", tx.Cards().AddWindowSpend(ctx, c.TenantID, c.ID, w, -50))
		sp, err := tx.Cards().WindowSpend(ctx, c.TenantID, c.ID, w)
		if sp.Daily != 100 || sp.Weekly != 100 || sp.Monthly != 100 {
			t.Errorf("WindowSpend = %+v, want 100 in each (5×30 − 50)", sp)
		}
		next, err2 := tx.Cards().WindowSpend(ctx, c.TenantID, c.ID, card.WindowsAt(ledgerNow().AddDate(0, 2, 0)))
		if next != (card.Spend{}) {
			t.Errorf("WindowSpend of later windows = %+v, want none", next)
		}
		foreign, err3 := tx.Cards().WindowSpend(ctx, other.ID, c.ID, w)
		if foreign != (card.Spend{}) {
			t.Errorf("WindowSpend under another tenant = %+v, want none", foreign)
		}
		return firstErr(err, err2, err3)
	})
}

// cardSpendRollover walks a card's spend across windows, row by row: a period whose window
// rolled over starts at zero; a credit (reversal, expiry, capture's remainder) in windows a period
// has left takes nothing from that period's current window (nor sends it below zero); an
// approval in windows taken just before a rollover another approval already made adds to the
// current windows, and a read in the earlier windows sees those.
func cardSpendRollover(t *testing.T, s ports.Store) {
	c := newCard(t, s, newTenant(t, s).ID)
	tue := time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)
	w0, w1, w2 := card.WindowsAt(tue), card.WindowsAt(tue.AddDate(0, 0, 1)), card.WindowsAt(tue.AddDate(0, 1, 12))
	if w0.Week != w1.Week || w0.Month != w1.Month || w0.Day == w1.Day {
		t.Fatalf("windows %+v and %+v: want one day apart in one week and month", w0, w1)
	}
	step := func(name string, fn func(ctx context.Context, tx ports.Tx) error, read card.Windows, want card.Spend) {
		t.Helper()
		unit(t, s, func(ctx context.Context, tx ports.Tx) error {
			if fn != nil {
				noErr(t, name, fn(ctx, tx))
			}
			got, err := tx.Cards().WindowSpend(ctx, c.TenantID, c.ID, read)
			noErr(t, name+": WindowSpend", err)
			if got != want {
				t.Errorf("%s: WindowSpend(%+v) = %+v, want %+v", name, read, got, want)
			}
			return nil
		})
	}
	add := func(w card.Windows, delta int64) func(ctx context.Context, tx ports.Tx) error {
		return func(ctx context.Context, tx ports.Tx) error {
			return tx.Cards().AddWindowSpend(ctx, c.TenantID, c.ID, w, delta)
		}
	}
	step("none yet", nil, w0, card.Spend{})
	step("100 on Tuesday", add(w0, 100), w0, card.Spend{Daily: 100, Weekly: 100, Monthly: 100})
	step("Wednesday's day starts at zero", nil, w1, card.Spend{Daily: 0, Weekly: 100, Monthly: 100})
	step("40 on Wednesday", add(w1, 40), w1, card.Spend{Daily: 40, Weekly: 140, Monthly: 140})
	step("Tuesday's windows read the current day", nil, w0, card.Spend{Daily: 40, Weekly: 140, Monthly: 140})
	step("Tuesday's 100 credited back: the day rolled over and keeps 40", add(w0, -100), w1,
		card.Spend{Daily: 40, Weekly: 40, Monthly: 40})
	step("10 in Tuesday's windows after Wednesday's approval: counted on Wednesday", add(w0, 10), w1,
		card.Spend{Daily: 50, Weekly: 50, Monthly: 50})
	step("those 10 credited back: Wednesday's day keeps them", add(w0, -10), w1,
		card.Spend{Daily: 50, Weekly: 40, Monthly: 40})
	step("Wednesday's 40 credited back", add(w1, -40), w1, card.Spend{Daily: 10, Weekly: 0, Monthly: 0})
	step("next month starts at zero", nil, w2, card.Spend{})
	step("5 next month", add(w2, 5), w2, card.Spend{Daily: 5, Weekly: 5, Monthly: 5})
	step("a credit in last month's windows takes nothing", add(w1, -10), w2, card.Spend{Daily: 5, Weekly: 5, Monthly: 5})
	step("last month's windows read the current ones", nil, w1, card.Spend{Daily: 5, Weekly: 5, Monthly: 5})
}
