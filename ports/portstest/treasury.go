package portstest

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/treasury"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// TreasuryRepo is the contract of ports.TreasuryRepo: an account keeps its buckets in order,
// is the tenant's (TREASURY_ACCOUNT_NOT_FOUND elsewhere) and is found by a bucket's wallet;
// rules list by id, a deleted rule is TREASURY_RULE_NOT_FOUND yet still locked by id, and the
// due list follows the account's clock; sweeps list newest first and are found by rule and by
// payment.
func TreasuryRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"an account keeps its buckets, is scoped, found by a bucket's wallet", treasuryAccounts},
		{"rules list by id; deleted ones are gone; the due list follows the clock", treasuryRules},
		{"sweeps list newest first, by rule and by payment", treasurySweeps},
	})
}

func newTreasuryAccount(t *testing.T, s ports.Store, tenantID string, apyBps int) treasury.Account {
	t.Helper()
	a := treasury.Account{ID: core.NewID(core.PrefixTreasuryAccount), TenantID: tenantID, Environment: core.EnvTest, Name: "ops",
		ChainID: 84532, Threshold: 1, CreatedAt: ledgerNow()}
	for i, kind := range []treasury.Kind{treasury.KindOperating, treasury.KindReserve} {
		w := newWallet(t, s, tenantID, core.EnvTest)
		a.Buckets = append(a.Buckets, treasury.Bucket{ID: core.NewID(core.PrefixTreasuryBucket), AccountID: a.ID, WalletID: w.ID,
			Address: w.Address, Name: string(kind), Kind: kind, TargetBps: 5000, ApyBps: apyBps * i, Position: i})
	}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Treasury().CreateAccount(ctx, a) })
	return a
}

func treasuryAccounts(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	a, b := newTreasuryAccount(t, s, tn.ID, 450), newTreasuryAccount(t, s, tn.ID, 0)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "SetClockOffset", tx.Treasury().SetClockOffset(ctx, tn.ID, a.ID, 3))
		got, err := tx.Treasury().FindAccount(ctx, tn.ID, core.EnvTest, a.ID)
		if len(got.Buckets) != 2 || got.Buckets[0].ID != a.Buckets[0].ID || got.Buckets[1].Kind != treasury.KindReserve ||
			got.Buckets[0].WalletID != a.Buckets[0].WalletID || got.ClockOffsetDays != 3 {
			t.Errorf("FindAccount = %+v", got)
		}
		_, err2 := tx.Treasury().FindAccount(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err2, treasury.CodeAccountNotFound)
		id, found, err3 := tx.Treasury().FindAccountIDByWallet(ctx, tn.ID, core.EnvTest, b.Buckets[1].WalletID)
		if !found || id != b.ID {
			t.Errorf("FindAccountIDByWallet = %s, %v; want %s", id, found, b.ID)
		}
		if _, found, _ := tx.Treasury().FindAccountIDByWallet(ctx, other.ID, core.EnvTest, b.Buckets[1].WalletID); found {
			t.Error("another tenant finds the account by its bucket's wallet")
		}
		list, total, err4 := tx.Treasury().ListAccounts(ctx, tn.ID, core.EnvTest, ports.Page{Take: 10})
		wantTotal(t, "ListAccounts", total, 2)
		wantIDs(t, "ListAccounts", ids(list, func(x treasury.Account) string { return x.ID }), []string{a.ID, b.ID})
		_, err5 := tx.Treasury().LockAccount(ctx, tn.ID, core.NewID(core.PrefixTreasuryAccount))
		wantCode(t, err5, treasury.CodeAccountNotFound)
		_, err5 = tx.Treasury().LockAccount(ctx, other.ID, a.ID)
		wantCode(t, err5, treasury.CodeAccountNotFound)
		if locked, err := tx.Treasury().LockAccount(ctx, tn.ID, a.ID); err != nil || len(locked.Buckets) != 2 {
			t.Errorf("LockAccount = %+v, %v", locked, err)
		}
		yielding, err6 := tx.Treasury().ListYieldAccounts(ctx, core.EnvTest, "", 100_000)
		earning := ids(yielding, func(x treasury.Account) string { return x.ID })
		if !containsString(earning, a.ID) || containsString(earning, b.ID) {
			t.Error("ListYieldAccounts does not list exactly the account with an earning bucket")
		}
		return firstErr(err, err3, err4, err6)
	})
}

func newRule(a treasury.Account, interval int, at time.Time) treasury.Rule {
	threshold := int64(100)
	return treasury.Rule{ID: core.NewID(core.PrefixTreasuryRule), AccountID: a.ID, TenantID: a.TenantID, Environment: a.Environment,
		Type: treasury.RuleSweepExcess, SourceBucketID: a.Buckets[0].ID, DestBucketID: a.Buckets[1].ID, Threshold: &threshold,
		IntervalSeconds: interval, Enabled: true, CreatedAt: at}
}

func treasuryRules(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	a := newTreasuryAccount(t, s, tn.ID, 0)
	at := ledgerNow().Add(-time.Hour)
	hourly, daily, gone := newRule(a, 3600, at), newRule(a, 86400, at), newRule(a, 60, at)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		for _, r := range []treasury.Rule{hourly, daily, gone} {
			noErr(t, "CreateRule", tx.Treasury().CreateRule(ctx, r))
		}
		deleted := ledgerNow()
		gone.DeletedAt = &deleted
		return tx.Treasury().UpdateRule(ctx, gone)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		_, err := tx.Treasury().FindRule(ctx, tn.ID, core.EnvTest, gone.ID)
		wantCode(t, err, treasury.CodeRuleNotFound)
		_, err = tx.Treasury().FindRule(ctx, other.ID, core.EnvTest, hourly.ID)
		wantCode(t, err, treasury.CodeRuleNotFound)
		locked, err2 := tx.Treasury().LockRule(ctx, tn.ID, gone.ID)
		if locked.DeletedAt == nil {
			t.Errorf("LockRule of a deleted rule = %+v", locked)
		}
		_, errOther := tx.Treasury().LockRule(ctx, other.ID, hourly.ID)
		wantCode(t, errOther, treasury.CodeRuleNotFound)
		if _, n, _ := tx.Treasury().ListRules(ctx, other.ID, a.ID, ports.Page{Take: 10}); n != 0 {
			t.Errorf("another tenant lists %d of the account's rules", n)
		}
		list, total, err3 := tx.Treasury().ListRules(ctx, tn.ID, a.ID, ports.Page{Take: 10})
		wantTotal(t, "ListRules", total, 2)
		wantIDs(t, "ListRules", ids(list, func(r treasury.Rule) string { return r.ID }), []string{hourly.ID, daily.ID})
		n, err4 := tx.Treasury().CountRules(ctx, tn.ID, a.ID)
		if n != 2 {
			t.Errorf("CountRules = %d, want 2", n)
		}
		due, err5 := tx.Treasury().ListDueRules(ctx, core.EnvTest, a.ID, ledgerNow().Add(time.Minute), 10)
		wantIDs(t, "ListDueRules now", ids(due, func(r treasury.Rule) string { return r.ID }), []string{hourly.ID})
		noErr(t, "SetClockOffset", tx.Treasury().SetClockOffset(ctx, tn.ID, a.ID, 2))
		due, err6 := tx.Treasury().ListDueRules(ctx, core.EnvTest, a.ID, ledgerNow(), 10)
		wantIDs(t, "ListDueRules two days on", ids(due, func(r treasury.Rule) string { return r.ID }), []string{hourly.ID, daily.ID})
		return firstErr(err2, err3, err4, err5, err6)
	})
}

func treasurySweeps(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	a := newTreasuryAccount(t, s, tn.ID, 0)
	r := newRule(a, 3600, ledgerNow())
	w := wallet.Wallet{ID: a.Buckets[0].WalletID, TenantID: tn.ID, Environment: core.EnvTest, Address: a.Buckets[0].Address, ChainID: a.ChainID}
	p1, p2 := newPayment(w, 0, safepay.StatusCreated), newPayment(w, 1, safepay.StatusCreated)
	sweep := func(p safepay.Payment, ruleID string) treasury.Sweep {
		return treasury.Sweep{ID: core.NewID(core.PrefixSweep), AccountID: a.ID, TenantID: tn.ID, Environment: core.EnvTest, RuleID: ruleID,
			SourceBucketID: a.Buckets[0].ID, DestBucketID: a.Buckets[1].ID, AmountBaseUnits: 50, Status: treasury.SweepProposed,
			PaymentID: p.ID, CreatedAt: ledgerNow()}
	}
	s1, s2 := sweep(p1, r.ID), sweep(p2, "")
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateRule", tx.Treasury().CreateRule(ctx, r))
		noErr(t, "CreatePayment", tx.Payments().CreatePayment(ctx, p1))
		noErr(t, "CreatePayment", tx.Payments().CreatePayment(ctx, p2))
		noErr(t, "CreateSweep", tx.Treasury().CreateSweep(ctx, s1))
		return tx.Treasury().CreateSweep(ctx, s2)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		list, total, err := tx.Treasury().ListSweeps(ctx, tn.ID, a.ID, ports.Page{Take: 10})
		wantTotal(t, "ListSweeps", total, 2)
		wantIDs(t, "ListSweeps", ids(list, func(x treasury.Sweep) string { return x.ID }), []string{s2.ID, s1.ID})
		latest, ok, err2 := tx.Treasury().LatestRuleSweep(ctx, tn.ID, r.ID)
		if !ok || latest.ID != s1.ID {
			t.Errorf("LatestRuleSweep = %s, %v; want %s", latest.ID, ok, s1.ID)
		}
		got, ok, err3 := tx.Treasury().FindSweepByPayment(ctx, tn.ID, p2.ID)
		if !ok || got.ID != s2.ID || got.RuleID != "" {
			t.Errorf("FindSweepByPayment = %+v, %v", got, ok)
		}
		if _, ok, _ := tx.Treasury().FindSweepByPayment(ctx, other.ID, p2.ID); ok {
			t.Error("another tenant finds the sweep by its payment")
		}
		if _, ok, _ := tx.Treasury().LatestRuleSweep(ctx, other.ID, r.ID); ok {
			t.Error("another tenant finds the rule's latest sweep")
		}
		if _, n, _ := tx.Treasury().ListSweeps(ctx, other.ID, a.ID, ports.Page{Take: 10}); n != 0 {
			t.Errorf("another tenant lists %d of the account's sweeps", n)
		}
		if _, ok, _ := tx.Treasury().FindSweepByPayment(ctx, tn.ID, core.NewID(core.PrefixPayment)); ok {
			t.Error("FindSweepByPayment found an unknown payment's sweep")
		}
		wallets := []string{a.Buckets[0].WalletID, a.Buckets[1].WalletID}
		pending, err4 := tx.Treasury().PendingSweepOutflows(ctx, tn.ID, a.ID, wallets)
		if len(pending) != 1 || pending[a.Buckets[0].ID] != 100 {
			t.Errorf("PendingSweepOutflows = %v, want both live sweeps from the first bucket", pending)
		}
		if n, _ := tx.Treasury().PendingSweepOutflows(ctx, other.ID, a.ID, wallets); len(n) != 0 {
			t.Errorf("another tenant sees pending outflows %v", n)
		}
		p1.Status = safepay.StatusCompleted
		noErr(t, "UpdatePayment", tx.Payments().UpdatePayment(ctx, p1))
		pending, err5 := tx.Treasury().PendingSweepOutflows(ctx, tn.ID, a.ID, wallets)
		if pending[a.Buckets[0].ID] != 50 {
			t.Errorf("PendingSweepOutflows after a payment completed = %v, want 50", pending)
		}
		return firstErr(err, err2, err3, err4, err5)
	})
}
