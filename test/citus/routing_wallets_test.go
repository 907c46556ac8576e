package citus

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/ramp"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/treasury"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// TestCitus_WalletAndTreasuryUnitsRouteToOneShard: the unit-of-work statements of wallets,
// handles, drips, Safe payments, ramps, agents and the treasury each go to one shard, including
// the lookups made before the tenant is known (a handle by name, a wallet address's tenant) and
// the locks by id the jobs take: run on connections that refuse a multi-shard statement, every
// one succeeds.
func TestCitus_WalletAndTreasuryUnitsRouteToOneShard(t *testing.T) {
	ctx := context.Background()
	store := singleShardStore(t)
	ten := env().NewTenant(t)
	now := time.Now().UTC().Truncate(time.Microsecond)
	var w, bucket wallet.Wallet
	steps := []struct {
		name string
		fn   func(ctx context.Context, tx ports.Tx) error
	}{
		{"wallets", func(ctx context.Context, tx ports.Tx) (err error) {
			w, err = walletsUnit(ctx, tx, ten.ID, now)
			return err
		}},
		{"a second wallet", func(ctx context.Context, tx ports.Tx) (err error) {
			bucket, err = walletsUnit(ctx, tx, ten.ID, now)
			return err
		}},
		{"handles", func(ctx context.Context, tx ports.Tx) error { return handlesUnit(ctx, tx, w) }},
		{"drips and ramps", func(ctx context.Context, tx ports.Tx) error { return dripsUnit(ctx, tx, w, now) }},
		{"Safe payments and agents", func(ctx context.Context, tx ports.Tx) error { return paymentsUnit(ctx, tx, w, now) }},
		{"treasury", func(ctx context.Context, tx ports.Tx) error { return treasuryUnit(ctx, tx, w, bucket, now) }},
	}
	for _, s := range steps {
		if err := store.InTx(ctx, s.fn); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
}

func walletsUnit(ctx context.Context, tx ports.Tx, tenant string, now time.Time) (wallet.Wallet, error) {
	r := tx.Wallets()
	address := routeAddress()
	w := wallet.Wallet{ID: core.NewID(core.PrefixWallet), TenantID: tenant, Environment: core.EnvTest, Name: "route",
		Purpose: wallet.PurposeGeneral, ChainID: wallet.SandboxChainID, Address: address,
		Owners: []wallet.Owner{{Address: address, Role: wallet.RoleAdminOwner}}, Threshold: 1,
		Status: wallet.StatusPendingDeployment, CreatedAt: now}
	if _, err := r.CountWalletsLocked(ctx, tenant, core.EnvTest); err != nil {
		return w, err
	}
	if err := r.CreateWallet(ctx, w); err != nil {
		return w, err
	}
	locked, err := r.LockWallet(ctx, tenant, w.ID)
	if err != nil {
		return w, err
	}
	if err := r.UpdateWallet(ctx, locked); err != nil {
		return w, err
	}
	if _, err := r.FindWallet(ctx, tenant, core.EnvTest, w.ID); err != nil {
		return w, err
	}
	if _, _, err := r.ListWallets(ctx, tenant, core.EnvTest, ports.Page{Take: 10}); err != nil {
		return w, err
	}
	if _, err := r.ListTenantWallets(ctx, tenant, core.EnvTest, 10); err != nil {
		return w, err
	}
	got, err := tx.Invoices().WalletTenant(ctx, core.EnvTest, address)
	if err == nil && got != tenant {
		err = fmt.Errorf("WalletTenant = %q, want %s", got, tenant)
	}
	return w, err
}

func handlesUnit(ctx context.Context, tx ports.Tx, w wallet.Wallet) error {
	r := tx.Handles()
	name := "route" + w.ID[len(w.ID)-8:]
	h := ports.Handle{Environment: core.EnvTest, Handle: name, TenantID: w.TenantID, WalletID: w.ID,
		CreatedAt: w.CreatedAt, UpdatedAt: w.CreatedAt}
	if _, err := r.PutHandle(ctx, h); err != nil {
		return err
	}
	if _, err := r.PutHandle(ctx, h); err != nil {
		return err
	}
	got, err := r.FindHandle(ctx, core.EnvTest, name)
	if err == nil && got.WalletID != w.ID {
		err = fmt.Errorf("FindHandle found wallet %q, want %s", got.WalletID, w.ID)
	}
	return err
}

func dripsUnit(ctx context.Context, tx ports.Tx, w wallet.Wallet, now time.Time) error {
	r := tx.Drips()
	d := wallet.Drip{ID: core.NewID(core.PrefixDrip), TenantID: w.TenantID, Environment: w.Environment, WalletID: w.ID,
		Address: w.Address, ChainID: w.ChainID, Asset: wallet.AssetUSDC, AmountBaseUnits: 10, Status: wallet.DripSubmitted,
		Purpose: wallet.DripForRamp, CreatedAt: now, UpdatedAt: now}
	if err := r.LockFaucet(ctx, w.TenantID); err != nil {
		return err
	}
	if err := r.CreateDrip(ctx, d); err != nil {
		return err
	}
	locked, err := r.LockDrip(ctx, w.TenantID, d.ID)
	if err != nil {
		return err
	}
	locked.Status, locked.TxHash = wallet.DripConfirmed, routeAddress()
	if err := r.UpdateDrip(ctx, locked); err != nil {
		return err
	}
	f := ports.DripFilter{TenantID: w.TenantID, Environment: w.Environment, WalletID: w.ID}
	if _, _, err := r.ListDrips(ctx, f, ports.Page{Take: 10}); err != nil {
		return err
	}
	if _, _, err := r.NthNewestDripSince(ctx, f, now.Add(-time.Hour), 1); err != nil {
		return err
	}
	if used, err := r.DripTxHashUsed(ctx, w.TenantID, w.ChainID, locked.TxHash); err != nil || !used {
		return errors.Join(err, fmt.Errorf("DripTxHashUsed = %v", used))
	}
	return rampsUnit(ctx, tx, w, d, now)
}

func rampsUnit(ctx context.Context, tx ports.Tx, w wallet.Wallet, d wallet.Drip, now time.Time) error {
	r := tx.Ramps()
	x := ramp.Ramp{ID: core.NewID(core.PrefixRamp), TenantID: w.TenantID, Environment: w.Environment, WalletID: w.ID,
		Direction: ramp.DirectionOn, Provider: ramp.ProviderSimulated, AmountBaseUnits: 10, DripID: d.ID, CreatedAt: now}
	if err := r.LockOnRampCap(ctx, w.TenantID, w.Environment); err != nil {
		return err
	}
	if err := r.CreateRamp(ctx, x); err != nil {
		return err
	}
	if _, err := r.FindRamp(ctx, w.TenantID, w.Environment, x.ID); err != nil {
		return err
	}
	if _, _, err := r.ListRamps(ctx, ports.RampFilter{TenantID: w.TenantID, Environment: w.Environment, WalletID: w.ID},
		ports.Page{Take: 10}); err != nil {
		return err
	}
	_, err := r.OnRampTotalSince(ctx, w.TenantID, w.Environment, now.Add(-time.Hour))
	return err
}

func routePayment(w wallet.Wallet, nonce uint64, now time.Time) safepay.Payment {
	return safepay.Payment{ID: core.NewID(core.PrefixPayment), Kind: safepay.KindTransfer, TenantID: w.TenantID,
		Environment: w.Environment, SourceWalletID: w.ID, SafeAddress: w.Address, ChainID: w.ChainID,
		DestinationType: safepay.DestinationAddress, DestinationAddress: w.Address, DestinationChainID: w.ChainID,
		Asset: "usdc", AmountBaseUnits: 100, Status: safepay.StatusAwaitingSignature, SafeNonce: nonce, Threshold: 1,
		CreatedAt: now, UpdatedAt: now}
}

// paymentsUnit walks a proposal (the wallet locked, the next nonce, the insert), the execution
// job's lock by id and completion with the queue behind it, and the agent reads over the wallet.
func paymentsUnit(ctx context.Context, tx ports.Tx, w wallet.Wallet, now time.Time) error {
	r := tx.Payments()
	if _, err := tx.Wallets().LockWallet(ctx, w.TenantID, w.ID); err != nil {
		return err
	}
	if _, _, err := r.HighestNonceInUse(ctx, w.TenantID, w.ID); err != nil {
		return err
	}
	p := routePayment(w, 0, now)
	if err := r.CreatePayment(ctx, p); err != nil {
		return err
	}
	locked, err := r.LockPayment(ctx, w.TenantID, p.ID)
	if err != nil {
		return err
	}
	// The walk moves no money: the payment ends cancelled, so the cluster's later corridor
	// check (the package's tests share it) finds no completed payment without its transfer.
	locked.Status = safepay.StatusCancelled
	if err := r.UpdatePayment(ctx, locked); err != nil {
		return err
	}
	if _, err := r.ListQueuedPayments(ctx, w.TenantID, w.ID, 0, 10); err != nil {
		return err
	}
	if _, err := r.FindPayment(ctx, w.TenantID, w.Environment, p.ID); err != nil {
		return err
	}
	if _, _, err := r.ListPayments(ctx, w.TenantID, w.Environment, ports.Page{Take: 10}); err != nil {
		return err
	}
	return agentsUnit(ctx, tx, w, now)
}

func agentsUnit(ctx context.Context, tx ports.Tx, w wallet.Wallet, now time.Time) error {
	r := tx.Agents()
	a := agent.Agent{ID: core.NewID(core.PrefixAgent), TenantID: w.TenantID, Environment: w.Environment, Name: "route",
		Status: agent.StatusActive, WalletID: w.ID, CreatedAt: now, UpdatedAt: now}
	if err := r.CreateAgent(ctx, a); err != nil {
		return err
	}
	if _, err := r.LockAgent(ctx, w.TenantID, w.Environment, a.ID); err != nil {
		return err
	}
	if _, _, err := r.FindAgentByWallet(ctx, w.TenantID, w.Environment, w.ID); err != nil {
		return err
	}
	if _, err := r.SpentInWindows(ctx, a, agent.WindowsAt(now)); err != nil {
		return err
	}
	_, err := r.ListActivity(ctx, a, nil, 10)
	return err
}

// treasuryUnit walks an account (created with its buckets, read, locked, its clock moved), a
// rule (created, locked by the runner, updated, listed) and a sweep with its payment.
func treasuryUnit(ctx context.Context, tx ports.Tx, w, other wallet.Wallet, now time.Time) error {
	r := tx.Treasury()
	a := treasury.Account{ID: core.NewID(core.PrefixTreasuryAccount), TenantID: w.TenantID, Environment: w.Environment,
		Name: "route", ChainID: w.ChainID, Threshold: 1, CreatedAt: now}
	for i, bw := range []wallet.Wallet{w, other} {
		a.Buckets = append(a.Buckets, treasury.Bucket{ID: core.NewID(core.PrefixTreasuryBucket), AccountID: a.ID,
			WalletID: bw.ID, Name: fmt.Sprint("b", i), Kind: treasury.KindOperating, TargetBps: 5000, Position: i})
	}
	if err := r.CreateAccount(ctx, a); err != nil {
		return err
	}
	if _, err := r.LockAccount(ctx, a.TenantID, a.ID); err != nil {
		return err
	}
	if _, _, err := r.FindAccountIDByWallet(ctx, a.TenantID, a.Environment, w.ID); err != nil {
		return err
	}
	if err := r.SetClockOffset(ctx, a.TenantID, a.ID, 1); err != nil {
		return err
	}
	if _, _, err := r.ListAccounts(ctx, a.TenantID, a.Environment, ports.Page{Take: 10}); err != nil {
		return err
	}
	threshold := int64(100)
	rule := treasury.Rule{ID: core.NewID(core.PrefixTreasuryRule), AccountID: a.ID, TenantID: a.TenantID,
		Environment: a.Environment, Type: treasury.RuleSweepExcess, SourceBucketID: a.Buckets[0].ID,
		DestBucketID: a.Buckets[1].ID, Threshold: &threshold, IntervalSeconds: 3600, Enabled: true, CreatedAt: now}
	if err := r.CreateRule(ctx, rule); err != nil {
		return err
	}
	return treasuryRuleSteps(ctx, tx, a, rule, w, now)
}

func treasuryRuleSteps(ctx context.Context, tx ports.Tx, a treasury.Account, rule treasury.Rule, w wallet.Wallet, now time.Time) error {
	r := tx.Treasury()
	locked, err := r.LockRule(ctx, a.TenantID, rule.ID)
	if err != nil {
		return err
	}
	locked.LastEvaluatedAt = &now
	if err := r.UpdateRule(ctx, locked); err != nil {
		return err
	}
	if _, err := r.FindRule(ctx, a.TenantID, a.Environment, rule.ID); err != nil {
		return err
	}
	if _, _, err := r.ListRules(ctx, a.TenantID, a.ID, ports.Page{Take: 10}); err != nil {
		return err
	}
	if _, err := r.CountRules(ctx, a.TenantID, a.ID); err != nil {
		return err
	}
	p := routePayment(w, 1, now)
	if err := tx.Payments().CreatePayment(ctx, p); err != nil {
		return err
	}
	sw := treasury.Sweep{ID: core.NewID(core.PrefixSweep), AccountID: a.ID, TenantID: a.TenantID, Environment: a.Environment,
		RuleID: rule.ID, SourceBucketID: a.Buckets[0].ID, DestBucketID: a.Buckets[1].ID, AmountBaseUnits: 50,
		Status: treasury.SweepProposed, PaymentID: p.ID, CreatedAt: now}
	if err := r.CreateSweep(ctx, sw); err != nil {
		return err
	}
	if _, _, err := r.ListSweeps(ctx, a.TenantID, a.ID, ports.Page{Take: 10}); err != nil {
		return err
	}
	if _, _, err := r.LatestRuleSweep(ctx, a.TenantID, rule.ID); err != nil {
		return err
	}
	_, _, err = r.FindSweepByPayment(ctx, a.TenantID, p.ID)
	return err
}
