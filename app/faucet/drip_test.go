package faucet

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// Worker-level tests of the drip job, with the ports/fake store and a scripted chain: they
// exercise retries, bounds and the send-at-most-once guard that the black-box tests on a
// healthy simulated chain cannot provoke.

// scriptedChain answers from fields; unset behaviour panics through the nil embedded Chain.
type scriptedChain struct {
	ports.Chain
	mu        sync.Mutex
	receipt   ports.TxStatus
	sendCalls int
	sendErr   error
	logs      []ports.TransferLog
	// onSend and onLogs, when set, run inside a send and a log read: another run's step there.
	onSend, onLogs func()
}

func (c *scriptedChain) ChainID() int64 { return wallet.SandboxChainID }
func (c *scriptedChain) Receipt(_ context.Context, h common.Hash) (ports.Receipt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return ports.Receipt{TxHash: h, Status: c.receipt, FailureReason: "boom"}, nil
}
func (c *scriptedChain) send() (common.Hash, error) {
	if c.onSend != nil {
		c.onSend()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sendCalls++
	if c.sendErr != nil {
		return common.Hash{}, c.sendErr
	}
	return common.BigToHash(big.NewInt(int64(1000 + c.sendCalls))), nil
}
func (c *scriptedChain) MintUSDC(context.Context, common.Address, *big.Int) (common.Hash, error) {
	return c.send()
}
func (c *scriptedChain) SendETH(context.Context, common.Address, *big.Int) (common.Hash, error) {
	return c.send()
}
func (c *scriptedChain) LatestBlock(context.Context) (uint64, error) { return 10, nil }
func (c *scriptedChain) USDCTransferLogs(context.Context, uint64, uint64, []common.Address) ([]ports.TransferLog, error) {
	if c.onLogs != nil {
		c.onLogs()
	}
	return c.logs, nil
}

const testAddress = "0x52908400098527886E0F7030069857D2E4169EE7"

// testStore is the ports/fake store with a reader for the one drip the tests use.
type testStore struct{ *fake.Store }

func (s testStore) drip(id string) wallet.Drip {
	d, _ := s.Drip(id)
	return d
}

func newTestService(t *testing.T, chain *scriptedChain) (*Service, testStore, *fake.Clock) {
	t.Helper()
	store := testStore{fake.NewStore()}
	clock := &fake.Clock{At: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	a, err := New(Deps{Store: store, Jobs: fake.Jobs{Store: store.Store}, Clock: clock,
		Chains: map[core.Environment]ports.Chain{core.EnvTest: chain}})
	if err != nil {
		t.Fatal(err)
	}
	return a, store, clock
}

func addDrip(t *testing.T, store testStore, asset wallet.Asset) {
	t.Helper()
	d := wallet.Drip{ID: "drp_1", Environment: core.EnvTest, WalletID: "wal_1", Address: testAddress,
		ChainID: wallet.SandboxChainID, Asset: asset, AmountBaseUnits: 5_000_000, Status: wallet.DripSubmitted}
	if err := store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error { return tx.Drips().CreateDrip(ctx, d) }); err != nil {
		t.Fatal(err)
	}
}

func TestDripWorker_SendsOnceAndConfirms(t *testing.T) {
	chain := &scriptedChain{receipt: ports.TxSucceeded}
	a, store, _ := newTestService(t, chain)
	addDrip(t, store, wallet.AssetUSDC)
	ctx := context.Background()
	if snooze, err := a.RunDrip(ctx, "", "drp_1"); err != nil || snooze != 0 {
		t.Fatalf("step: %v %v", snooze, err)
	}
	d := store.drip("drp_1")
	if d.Status != wallet.DripConfirmed || d.TxHash == "" || d.SendFromBlock != 10 || chain.sendCalls != 1 {
		t.Fatalf("drip %+v after %d sends", d, chain.sendCalls)
	}
	if _, err := a.RunDrip(ctx, "", "drp_1"); err != nil || chain.sendCalls != 1 {
		t.Fatalf("a retried job sent again: %d sends, %v", chain.sendCalls, err)
	}
}

func TestDripWorker_PendingWaitsWithoutResending(t *testing.T) {
	chain := &scriptedChain{receipt: ports.TxPending}
	a, store, _ := newTestService(t, chain)
	addDrip(t, store, wallet.AssetETH)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if snooze, err := a.RunDrip(ctx, "", "drp_1"); err != nil || snooze <= 0 {
			t.Fatalf("pending step %d: %v %v", i, snooze, err)
		}
	}
	chain.receipt = ports.TxFailed
	if _, err := a.RunDrip(ctx, "", "drp_1"); err != nil {
		t.Fatal(err)
	}
	d := store.drip("drp_1")
	if d.Status != wallet.DripFailed || !strings.Contains(d.FailureReason, "reverted: boom") || chain.sendCalls != 1 {
		t.Fatalf("drip %+v after %d sends", d, chain.sendCalls)
	}
}

// TestDripWorker_InterruptedSendIsNeverRepeated: a send whose outcome is unknown is looked for on
// chain (a USDC mint leaves a log) and adopted, or the drip fails after a grace period; the job
// never sends a second time.
func TestDripWorker_InterruptedSendIsNeverRepeated(t *testing.T) {
	ctx := context.Background()
	t.Run("usdc mint found in the logs is adopted", func(t *testing.T) {
		chain := &scriptedChain{receipt: ports.TxSucceeded, sendErr: errors.New("connection reset")}
		a, store, _ := newTestService(t, chain)
		addDrip(t, store, wallet.AssetUSDC)
		if _, err := a.RunDrip(ctx, "", "drp_1"); err == nil {
			t.Fatal("an ambiguous send must fail the run")
		}
		mined := common.HexToHash("0xfeed")
		chain.logs = []ports.TransferLog{
			{TxHash: common.HexToHash("0xdead"), To: common.HexToAddress(testAddress), AmountBaseUnits: big.NewInt(4_000_000)},
			{TxHash: mined, To: common.HexToAddress(testAddress), AmountBaseUnits: big.NewInt(5_000_000)},
		}
		if _, err := a.RunDrip(ctx, "", "drp_1"); err != nil {
			t.Fatal(err)
		}
		if d := store.drip("drp_1"); d.Status != wallet.DripConfirmed || d.TxHash != mined.Hex() || chain.sendCalls != 1 {
			t.Fatalf("drip %+v after %d sends", d, chain.sendCalls)
		}
	})
	t.Run("nothing found fails after the grace period", func(t *testing.T) {
		chain := &scriptedChain{receipt: ports.TxSucceeded, sendErr: errors.New("connection reset")}
		a, store, clock := newTestService(t, chain)
		addDrip(t, store, wallet.AssetUSDC)
		_, _ = a.RunDrip(ctx, "", "drp_1")
		if snooze, err := a.RunDrip(ctx, "", "drp_1"); err != nil || snooze <= 0 {
			t.Fatalf("within grace: %v %v", snooze, err)
		}
		clock.Advance(dripRecoveryGrace + time.Second)
		if _, err := a.RunDrip(ctx, "", "drp_1"); err != nil {
			t.Fatal(err)
		}
		if d := store.drip("drp_1"); d.Status != wallet.DripFailed || !strings.Contains(d.FailureReason, "did not send again") || chain.sendCalls != 1 {
			t.Fatalf("drip %+v after %d sends", d, chain.sendCalls)
		}
	})
	t.Run("eth has no logs and fails at once", func(t *testing.T) {
		chain := &scriptedChain{sendErr: errors.New("connection reset")}
		a, store, _ := newTestService(t, chain)
		addDrip(t, store, wallet.AssetETH)
		_, _ = a.RunDrip(ctx, "", "drp_1")
		if _, err := a.RunDrip(ctx, "", "drp_1"); err != nil {
			t.Fatal(err)
		}
		if d := store.drip("drp_1"); d.Status != wallet.DripFailed || chain.sendCalls != 1 {
			t.Fatalf("drip %+v after %d sends", d, chain.sendCalls)
		}
	})
	t.Run("a refused send fails with its reason", func(t *testing.T) {
		chain := &scriptedChain{sendErr: &ports.RevertError{Reason: "not minter"}}
		a, store, _ := newTestService(t, chain)
		addDrip(t, store, wallet.AssetUSDC)
		if _, err := a.RunDrip(ctx, "", "drp_1"); err != nil {
			t.Fatal(err)
		}
		if d := store.drip("drp_1"); d.Status != wallet.DripFailed || !strings.Contains(d.FailureReason, "not minter") {
			t.Fatalf("drip %+v", d)
		}
	})
}

// TestDripWorker_ConcurrentRunsKeepLooking: two runs of one drip (the job, and an on-ramp's
// create answering once the mint is mined) meet at the send. Whichever records the mint's hash
// second is told to look again, not that the drip is done (which made an on-ramp answer
// SUBMITTED at once) nor that it failed (which made the job retry with an error).
func TestDripWorker_ConcurrentRunsKeepLooking(t *testing.T) {
	ctx := context.Background()
	mint := common.BigToHash(big.NewInt(1001)) // the scripted chain's first send
	minted := []ports.TransferLog{{TxHash: mint, To: common.HexToAddress(testAddress), AmountBaseUnits: big.NewInt(5_000_000)}}
	t.Run("the sender records the hash after a recovering run adopted it", func(t *testing.T) {
		chain := &scriptedChain{receipt: ports.TxPending, logs: minted}
		a, store, _ := newTestService(t, chain)
		addDrip(t, store, wallet.AssetUSDC)
		chain.onSend = func() {
			chain.onSend = nil
			if snooze, err := a.RunDrip(ctx, "", "drp_1"); err != nil || snooze <= 0 {
				t.Errorf("the recovering run: %v %v", snooze, err)
			}
		}
		if snooze, err := a.RunDrip(ctx, "", "drp_1"); err != nil || snooze <= 0 {
			t.Fatalf("the sending run: %v %v, want to look again", snooze, err)
		}
		if d := store.drip("drp_1"); d.Status != wallet.DripSubmitted || d.TxHash != mint.Hex() || chain.sendCalls != 1 {
			t.Fatalf("drip %+v after %d sends", d, chain.sendCalls)
		}
	})
	t.Run("a recovering run meets the hash the sender recorded meanwhile", func(t *testing.T) {
		chain := &scriptedChain{receipt: ports.TxPending, logs: minted}
		a, store, _ := newTestService(t, chain)
		addDrip(t, store, wallet.AssetUSDC)
		if _, err := a.recordDrip(ctx, "", "drp_1", wallet.DripSendStarted, "", 10, ""); err != nil {
			t.Fatal(err)
		}
		chain.onLogs = func() {
			chain.onLogs = nil
			if _, err := a.recordDrip(ctx, "", "drp_1", wallet.DripSent, mint.Hex(), 0, ""); err != nil {
				t.Error(err)
			}
		}
		if snooze, err := a.RunDrip(ctx, "", "drp_1"); err != nil || snooze <= 0 {
			t.Fatalf("the recovering run: %v %v, want to look again", snooze, err)
		}
		chain.receipt = ports.TxSucceeded
		if snooze, err := a.RunDrip(ctx, "", "drp_1"); err != nil || snooze != 0 || store.drip("drp_1").Status != wallet.DripConfirmed {
			t.Fatalf("once mined: %v %v %+v", snooze, err, store.drip("drp_1"))
		}
	})
}

// TestFundWallet_DripJobCarriesTheTenant: the drip job names the drip's tenant, so its locks by
// id route to the tenant's shard (docs/scaling.md); the drip is found under that tenant only.
func TestFundWallet_DripJobCarriesTheTenant(t *testing.T) {
	a, store, clock := newTestService(t, &scriptedChain{receipt: ports.TxSucceeded})
	ctx := context.Background()
	w := wallet.Wallet{ID: "wal_t", TenantID: "ten_t", Environment: core.EnvTest, ChainID: wallet.SandboxChainID,
		Address: testAddress, Owners: []wallet.Owner{{Address: testAddress, Role: wallet.RoleAdminOwner}}, Threshold: 1,
		Status: wallet.StatusDeployed, CreatedAt: clock.Now()}
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().CreateWallet(ctx, w) }); err != nil {
		t.Fatal(err)
	}
	p := auth.Principal{Kind: auth.KindAPIKey, TenantID: "ten_t", Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeRoot}}
	asset, amount := "usdc", "5"
	d, err := a.FundWallet(ctx, p, w.ID, FundInput{Asset: &asset, Amount: &amount})
	if err != nil {
		t.Fatal(err)
	}
	jobs := store.Jobs()
	if len(jobs) != 1 || jobs[0].Args != (DripArgs{TenantID: "ten_t", DripID: d.ID}) {
		t.Fatalf("jobs %+v, want one drip job naming tenant ten_t and drip %s", jobs, d.ID)
	}
	err = store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		_, err := tx.Drips().LockDrip(ctx, "ten_other", d.ID)
		return err
	})
	if !core.HasCode(err, core.CodeDripNotFound) {
		t.Errorf("another tenant's lock of the drip: err = %v, want DRIP_NOT_FOUND", err)
	}
}
