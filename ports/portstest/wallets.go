package portstest

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/ramp"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// WalletRepo is the contract of ports.WalletRepo: wallets list by id per tenant and
// environment, a lookup elsewhere is WALLET_NOT_FOUND, an update writes status and deployment,
// and the quota count serializes creators (units that count and insert at once never pass it).
func WalletRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"wallets list by id, paged and scoped; elsewhere WALLET_NOT_FOUND", walletList},
		{"an update writes status and deployment", walletUpdate},
		{"a second wallet at one chain and address is refused", walletAddressUnique},
		{"creators counting under the quota lock never pass it", walletQuota},
	})
}

func walletList(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	a, b := newWallet(t, s, tn.ID, core.EnvTest), newWallet(t, s, tn.ID, core.EnvTest)
	newWallet(t, s, tn.ID, core.EnvLive)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		list, total, err := tx.Wallets().ListWallets(ctx, tn.ID, core.EnvTest, ports.Page{Skip: 1, Take: 5})
		wantTotal(t, "ListWallets", total, 2)
		wantIDs(t, "ListWallets skip 1", ids(list, func(w wallet.Wallet) string { return w.ID }), []string{b.ID})
		all, err2 := tx.Wallets().ListTenantWallets(ctx, tn.ID, core.EnvTest, 10)
		wantIDs(t, "ListTenantWallets", ids(all, func(w wallet.Wallet) string { return w.ID }), []string{a.ID, b.ID})
		got, err3 := tx.Wallets().FindWallet(ctx, tn.ID, core.EnvTest, a.ID)
		if got.Address != a.Address || len(got.Owners) != 1 || got.Threshold != 1 || got.Status != wallet.StatusPendingDeployment {
			t.Errorf("FindWallet = %+v", got)
		}
		_, err4 := tx.Wallets().FindWallet(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err4, core.CodeWalletNotFound)
		_, err4 = tx.Wallets().LockWallet(ctx, tn.ID, core.NewID(core.PrefixWallet))
		wantCode(t, err4, core.CodeWalletNotFound)
		_, err4 = tx.Wallets().LockWallet(ctx, other.ID, a.ID)
		wantCode(t, err4, core.CodeWalletNotFound)
		if got, err := tx.Wallets().LockWallet(ctx, "", a.ID); err != nil || got.ID != a.ID {
			t.Errorf("LockWallet without a tenant (a job from before jobs carried it) = %+v, %v", got, err)
		}
		n, err5 := tx.Wallets().CountWalletsLocked(ctx, tn.ID, core.EnvLive)
		if n != 1 {
			t.Errorf("CountWalletsLocked(LIVE) = %d, want 1", n)
		}
		return firstErr(err, err2, err3, err5)
	})
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func walletUpdate(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	w := newWallet(t, s, tn.ID, core.EnvTest)
	at := ledgerNow()
	w.Status, w.DeployTxHash, w.DeployAttempts, w.DeployedAt = wallet.StatusDeployed, "0x"+suffix(t), 1, &at
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().UpdateWallet(ctx, w) })
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Wallets().LockWallet(ctx, tn.ID, w.ID)
		if err != nil || got.Status != wallet.StatusDeployed || got.DeployTxHash != w.DeployTxHash || got.DeployedAt == nil || !got.DeployedAt.Equal(at) {
			t.Errorf("after UpdateWallet = %+v, %v", got, err)
		}
		return nil
	})
}

func walletQuota(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	template := newWallet(t, s, tn.ID, core.EnvLive)
	for _, err := range concurrently(s, 5, func(ctx context.Context, tx ports.Tx, _ int) error {
		n, err := tx.Wallets().CountWalletsLocked(ctx, tn.ID, core.EnvTest)
		if err != nil || n >= 2 {
			return err
		}
		w := template
		w.ID, w.Environment, w.Address = core.NewID(core.PrefixWallet), core.EnvTest, randomAddress()
		return tx.Wallets().CreateWallet(ctx, w)
	}) {
		noErr(t, "quota unit", err)
	}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		n, err := tx.Wallets().CountWalletsLocked(ctx, tn.ID, core.EnvTest)
		if n != 2 {
			t.Errorf("five creators under a quota of 2 made %d wallets", n)
		}
		return err
	})
}

// PaymentRepo is the contract of ports.PaymentRepo: payments list newest first, lookups are
// scoped (PAYMENT_NOT_FOUND elsewhere), an update writes status and signatures, and the nonce
// queries see only payments that hold their nonce.
func PaymentRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"payments list newest first; elsewhere PAYMENT_NOT_FOUND", paymentList},
		{"nonces in use and the queue skip payments that gave theirs up", paymentNonces},
	})
}

func newPayment(w wallet.Wallet, nonce uint64, status safepay.Status) safepay.Payment {
	at := ledgerNow()
	return safepay.Payment{ID: core.NewID(core.PrefixPayment), Kind: safepay.KindTransfer, TenantID: w.TenantID, Environment: w.Environment,
		SourceWalletID: w.ID, SafeAddress: w.Address, ChainID: w.ChainID, DestinationType: safepay.DestinationAddress,
		DestinationAddress: w.Address, DestinationChainID: w.ChainID, Asset: "usdc", AmountBaseUnits: 100, Status: status,
		SafeNonce: nonce, Threshold: 1, CreatedAt: at, UpdatedAt: at}
}

func paymentList(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	w := newWallet(t, s, tn.ID, core.EnvTest)
	a, b := newPayment(w, 0, safepay.StatusCreated), newPayment(w, 1, safepay.StatusCreated)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreatePayment", tx.Payments().CreatePayment(ctx, a))
		return tx.Payments().CreatePayment(ctx, b)
	})
	a.Status, a.SafeTxHash, a.Signatures = safepay.StatusSigning, "0xabc", []safepay.Signature{{Signer: w.Address, Value: "0x01", SignedAt: ledgerNow()}}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "UpdatePayment", tx.Payments().UpdatePayment(ctx, a))
		list, total, err := tx.Payments().ListPayments(ctx, tn.ID, core.EnvTest, ports.Page{Take: 10})
		wantTotal(t, "ListPayments", total, 2)
		wantIDs(t, "ListPayments", ids(list, func(p safepay.Payment) string { return p.ID }), []string{b.ID, a.ID})
		got, err2 := tx.Payments().FindPayment(ctx, tn.ID, core.EnvTest, a.ID)
		if got.Status != safepay.StatusSigning || len(got.Signatures) != 1 || got.SafeTxHash != "0xabc" {
			t.Errorf("after UpdatePayment = %+v", got)
		}
		_, err3 := tx.Payments().FindPayment(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err3, safepay.CodePaymentNotFound)
		_, err3 = tx.Payments().FindPayment(ctx, tn.ID, core.EnvLive, a.ID)
		wantCode(t, err3, safepay.CodePaymentNotFound)
		return firstErr(err, err2)
	})
}

func paymentNonces(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	w := newWallet(t, s, tn.ID, core.EnvTest)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		_, ok, err := tx.Payments().HighestNonceInUse(ctx, tn.ID, w.ID)
		if ok {
			t.Error("a wallet without payments has a nonce in use")
		}
		return err
	})
	done, queued, cancelled := newPayment(w, 0, safepay.StatusCompleted), newPayment(w, 1, safepay.StatusAwaitingSignature),
		newPayment(w, 2, safepay.StatusCancelled)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		for _, p := range []safepay.Payment{done, queued, cancelled} {
			noErr(t, "CreatePayment", tx.Payments().CreatePayment(ctx, p))
		}
		return nil
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		n, ok, err := tx.Payments().HighestNonceInUse(ctx, tn.ID, w.ID)
		if !ok || n != 1 {
			t.Errorf("HighestNonceInUse = %d, %v; want 1 (the cancelled payment gave 2 up)", n, ok)
		}
		if _, ok, _ := tx.Payments().HighestNonceInUse(ctx, other.ID, w.ID); ok {
			t.Error("another tenant sees the wallet's nonces in use")
		}
		if q, _ := tx.Payments().ListQueuedPayments(ctx, other.ID, w.ID, 0, 10); len(q) != 0 {
			t.Errorf("another tenant sees %d of the wallet's queued payments", len(q))
		}
		q, err2 := tx.Payments().ListQueuedPayments(ctx, tn.ID, w.ID, 0, 10)
		wantIDs(t, "ListQueuedPayments", ids(q, func(p safepay.Payment) string { return p.ID }), []string{queued.ID})
		stale, err3 := tx.Payments().ListStalePayments(ctx, safepay.StatusAwaitingSignature, queued.UpdatedAt.Add(time.Second), 100_000)
		if !containsString(ids(stale, func(p safepay.Payment) string { return p.ID }), queued.ID) {
			t.Error("ListStalePayments does not list a payment last changed before the bound")
		}
		stale, _ = tx.Payments().ListStalePayments(ctx, safepay.StatusAwaitingSignature, queued.UpdatedAt, 100_000)
		if containsString(ids(stale, func(p safepay.Payment) string { return p.ID }), queued.ID) {
			t.Error("ListStalePayments lists a payment changed at the bound")
		}
		locked, err4 := tx.Payments().LockPayment(ctx, tn.ID, done.ID)
		if locked.Status != safepay.StatusCompleted {
			t.Errorf("LockPayment = %+v", locked)
		}
		if legacy, err := tx.Payments().LockPayment(ctx, "", done.ID); err != nil || legacy.ID != done.ID {
			t.Errorf("LockPayment without a tenant (a job from before jobs carried it) = %+v, %v", legacy, err)
		}
		_, err5 := tx.Payments().LockPayment(ctx, tn.ID, core.NewID(core.PrefixPayment))
		wantCode(t, err5, safepay.CodePaymentNotFound)
		_, err5 = tx.Payments().LockPayment(ctx, other.ID, done.ID)
		wantCode(t, err5, safepay.CodePaymentNotFound)
		return firstErr(err, err2, err3, err4)
	})
}

// DripRepo is the contract of ports.DripRepo: the faucet's drips list newest first (a ramp's
// credit left out), lookups are scoped (DRIP_NOT_FOUND elsewhere), the window query counts back
// from the newest, and a recorded transaction hash is known per chain.
func DripRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{{"faucet drips list newest first, scoped; windows and hashes", dripList}})
}

func newDrip(w wallet.Wallet, purpose wallet.DripPurpose, at time.Time) wallet.Drip {
	return wallet.Drip{ID: core.NewID(core.PrefixDrip), TenantID: w.TenantID, Environment: w.Environment, WalletID: w.ID,
		Address: w.Address, ChainID: w.ChainID, Asset: wallet.AssetUSDC, AmountBaseUnits: 10, Status: wallet.DripSubmitted,
		Purpose: purpose, CreatedAt: at, UpdatedAt: at}
}

func dripList(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	w := newWallet(t, s, tn.ID, core.EnvTest)
	base := ledgerNow()
	a, b, credit := newDrip(w, wallet.DripForFaucet, base), newDrip(w, wallet.DripForFaucet, base.Add(time.Second)), newDrip(w, wallet.DripForRamp, base)
	hash := "0x" + suffix(t)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		for _, d := range []wallet.Drip{a, b, credit} {
			noErr(t, "CreateDrip", tx.Drips().CreateDrip(ctx, d))
		}
		a.Status, a.TxHash = wallet.DripConfirmed, hash
		return tx.Drips().UpdateDrip(ctx, a)
	})
	f := ports.DripFilter{TenantID: tn.ID, Environment: core.EnvTest}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "LockFaucet", tx.Drips().LockFaucet(ctx, tn.ID))
		list, total, err := tx.Drips().ListDrips(ctx, f, ports.Page{Take: 10})
		wantTotal(t, "ListDrips", total, 2)
		wantIDs(t, "ListDrips", ids(list, func(d wallet.Drip) string { return d.ID }), []string{b.ID, a.ID})
		at, ok, err2 := tx.Drips().NthNewestDripSince(ctx, f, base.Add(-time.Minute), 2)
		if !ok || !at.Equal(base) {
			t.Errorf("NthNewestDripSince(2) = %v, %v; want %v", at, ok, base)
		}
		if _, ok, _ := tx.Drips().NthNewestDripSince(ctx, f, base.Add(-time.Minute), 3); ok {
			t.Error("NthNewestDripSince(3) found a third faucet drip")
		}
		used, err3 := tx.Drips().DripTxHashUsed(ctx, tn.ID, w.ChainID, hash)
		if !used {
			t.Error("DripTxHashUsed does not know a recorded hash")
		}
		if used, _ := tx.Drips().DripTxHashUsed(ctx, other.ID, w.ChainID, hash); used {
			t.Error("DripTxHashUsed knows another tenant's hash")
		}
		_, errOther := tx.Drips().LockDrip(ctx, other.ID, a.ID)
		wantCode(t, errOther, core.CodeDripNotFound)
		_, err4 := tx.Drips().FindDrip(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err4, core.CodeDripNotFound)
		got, err5 := tx.Drips().LockDrip(ctx, tn.ID, a.ID)
		if got.Status != wallet.DripConfirmed {
			t.Errorf("after UpdateDrip = %+v", got)
		}
		return firstErr(err, err2, err3, err5)
	})
}

// RampRepo is the contract of ports.RampRepo: ramps list newest first (optionally of one
// wallet), lookups are scoped (RAMP_NOT_FOUND elsewhere), a malformed ramp is refused, and the
// on-ramp total leaves out ramps whose credit FAILED.
func RampRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{{"ramps list newest first, scoped; the cap total skips failed credits", rampList}})
}

func rampList(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	w1, w2 := newWallet(t, s, tn.ID, core.EnvTest), newWallet(t, s, tn.ID, core.EnvTest)
	since := ledgerNow().Add(-time.Minute)
	d1, d2 := newDrip(w1, wallet.DripForRamp, ledgerNow()), newDrip(w2, wallet.DripForRamp, ledgerNow())
	d2.Status = wallet.DripFailed
	onRamp := func(w wallet.Wallet, d wallet.Drip, amount int64) ramp.Ramp {
		return ramp.Ramp{ID: core.NewID(core.PrefixRamp), TenantID: tn.ID, Environment: core.EnvTest, WalletID: w.ID,
			Direction: ramp.DirectionOn, Provider: ramp.ProviderSimulated, AmountBaseUnits: amount, DripID: d.ID, CreatedAt: ledgerNow()}
	}
	r1, r2 := onRamp(w1, d1, 300), onRamp(w2, d2, 50)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateDrip", tx.Drips().CreateDrip(ctx, d1))
		noErr(t, "CreateDrip", tx.Drips().CreateDrip(ctx, d2))
		noErr(t, "LockOnRampCap", tx.Ramps().LockOnRampCap(ctx, tn.ID, core.EnvTest))
		noErr(t, "CreateRamp", tx.Ramps().CreateRamp(ctx, r1))
		return tx.Ramps().CreateRamp(ctx, r2)
	})
	bad := onRamp(w1, d1, 0)
	if err := unitErr(s, func(ctx context.Context, tx ports.Tx) error { return tx.Ramps().CreateRamp(ctx, bad) }); err == nil {
		t.Error("a ramp of amount 0 was stored")
	}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		list, total, err := tx.Ramps().ListRamps(ctx, ports.RampFilter{TenantID: tn.ID, Environment: core.EnvTest}, ports.Page{Take: 10})
		wantTotal(t, "ListRamps", total, 2)
		wantIDs(t, "ListRamps", ids(list, func(r ramp.Ramp) string { return r.ID }), []string{r2.ID, r1.ID})
		one, _, err2 := tx.Ramps().ListRamps(ctx, ports.RampFilter{TenantID: tn.ID, Environment: core.EnvTest, WalletID: w1.ID}, ports.Page{Take: 10})
		wantIDs(t, "ListRamps of a wallet", ids(one, func(r ramp.Ramp) string { return r.ID }), []string{r1.ID})
		_, err3 := tx.Ramps().FindRamp(ctx, other.ID, core.EnvTest, r1.ID)
		wantCode(t, err3, ramp.CodeRampNotFound)
		sum, err4 := tx.Ramps().OnRampTotalSince(ctx, tn.ID, core.EnvTest, since)
		if sum != 300 {
			t.Errorf("OnRampTotalSince = %d, want 300 (the failed credit left out)", sum)
		}
		return firstErr(err, err2, err4)
	})
}

func walletAddressUnique(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	w := newWallet(t, s, tn.ID, core.EnvTest)
	again := w
	again.ID = core.NewID(core.PrefixWallet)
	if err := unitErr(s, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().CreateWallet(ctx, again) }); err == nil {
		t.Error("a second wallet at the same chain and address was stored")
	}
	// The address stays one tenant's in its environment: another tenant cannot hold it on another chain.
	theirs := w
	theirs.ID, theirs.TenantID, theirs.ChainID = core.NewID(core.PrefixWallet), other.ID, w.ChainID+1
	if err := unitErr(s, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().CreateWallet(ctx, theirs) }); err == nil {
		t.Error("another tenant's wallet at the same address was stored")
	}
	// The same tenant may hold it on another chain, and the address still names the tenant.
	mine := w
	mine.ID, mine.ChainID = core.NewID(core.PrefixWallet), w.ChainID+1
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().CreateWallet(ctx, mine) })
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Invoices().WalletTenant(ctx, core.EnvTest, w.Address)
		if got != tn.ID {
			t.Errorf("WalletTenant = %s, want %s", got, tn.ID)
		}
		return err
	})
}

// PaymentHoldRepo is the contract of ports.PaymentHoldRepo: a payment's hold is found by its
// tenant and payment, a wallet's holds lowest Safe nonce first and summed, and a deleted hold
// is gone; another tenant sees none of them.
func PaymentHoldRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{{"holds are found per payment and per wallet, summed, and deleted", paymentHolds}})
}

func paymentHolds(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	w := newWallet(t, s, tn.ID, core.EnvTest)
	first, second := newPayment(w, 3, safepay.StatusExecuting), newPayment(w, 4, safepay.StatusExecuting)
	hold := func(p safepay.Payment, amount int64) ports.PaymentHold {
		return ports.PaymentHold{TenantID: p.TenantID, PaymentID: p.ID, WalletID: w.ID, SafeNonce: p.SafeNonce, AmountBaseUnits: amount,
			Recipient: w.Address, TransferID: core.NewID(core.PrefixTransfer), CreatedAt: ledgerNow()}
	}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreatePayment", tx.Payments().CreatePayment(ctx, second))
		noErr(t, "CreatePayment", tx.Payments().CreatePayment(ctx, first))
		noErr(t, "InsertPaymentHold", tx.PaymentHolds().InsertPaymentHold(ctx, hold(second, 7)))
		return tx.PaymentHolds().InsertPaymentHold(ctx, hold(first, 5))
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, ok, err := tx.PaymentHolds().LockPaymentHold(ctx, tn.ID, first.ID)
		if !ok || got.AmountBaseUnits != 5 || got.SafeNonce != 3 || got.Recipient != w.Address || got.WalletID != w.ID {
			t.Errorf("LockPaymentHold = %+v, %v", got, ok)
		}
		if _, ok, _ := tx.PaymentHolds().LockPaymentHold(ctx, other.ID, first.ID); ok {
			t.Error("another tenant finds the hold")
		}
		list, err2 := tx.PaymentHolds().LockWalletPaymentHolds(ctx, tn.ID, w.ID, 10)
		wantIDs(t, "LockWalletPaymentHolds", ids(list, func(h ports.PaymentHold) string { return h.PaymentID }), []string{first.ID, second.ID})
		if one, _ := tx.PaymentHolds().LockWalletPaymentHolds(ctx, tn.ID, w.ID, 1); len(one) != 1 || one[0].PaymentID != first.ID {
			t.Errorf("LockWalletPaymentHolds with limit 1 = %+v", one)
		}
		if list, _ := tx.PaymentHolds().LockWalletPaymentHolds(ctx, other.ID, w.ID, 10); len(list) != 0 {
			t.Errorf("another tenant sees %d holds", len(list))
		}
		held, err3 := tx.PaymentHolds().WalletPaymentHeld(ctx, tn.ID, w.ID)
		if held != 12 {
			t.Errorf("WalletPaymentHeld = %d, want 12", held)
		}
		return firstErr(err, err2, err3, tx.PaymentHolds().DeletePaymentHold(ctx, tn.ID, first.ID))
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		_, ok, err := tx.PaymentHolds().LockPaymentHold(ctx, tn.ID, first.ID)
		if ok {
			t.Error("a deleted hold is still found")
		}
		held, err2 := tx.PaymentHolds().WalletPaymentHeld(ctx, tn.ID, w.ID)
		if held != 7 {
			t.Errorf("WalletPaymentHeld after a delete = %d, want 7", held)
		}
		return firstErr(err, err2)
	})
}
