package wallets

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
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// Worker-level tests of the deployment and faucet steps, with in-memory fakes for the store and
// a scripted chain: they exercise retries, bounds and the send-at-most-once guard that the
// black-box tests on a healthy simulated chain cannot provoke.

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// testStore is the ports/fake store with readers for the one wallet and drip the tests use.
type testStore struct{ *fake.Store }

func (s testStore) wallet(id string) wallet.Wallet {
	w, _ := s.Wallet(id)
	return w
}

func (s testStore) drip(id string) wallet.Drip {
	d, _ := s.Drip(id)
	return d
}

// put stores rows in a unit of work of their own.
func (s testStore) put(t *testing.T, fn func(ctx context.Context, tx ports.Tx) error) {
	t.Helper()
	if err := s.InTx(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// scriptedChain answers from fields; unset behaviour panics through the nil embedded Chain.
type scriptedChain struct {
	ports.Chain
	mu          sync.Mutex
	deployed    bool
	deployOnTx  bool // a succeeded deployment receipt puts code at the address
	deployCalls int
	deployErr   error
	receipt     ports.TxStatus
	sendCalls   int
	sendErr     error
	logs        []ports.TransferLog
	lastHash    common.Hash
}

func (c *scriptedChain) ChainID() int64 { return wallet.SandboxChainID }
func (c *scriptedChain) IsDeployed(context.Context, common.Address) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deployed, nil
}
func (c *scriptedChain) DeploySafe(_ context.Context, _ ports.SafeConfig) (common.Hash, common.Address, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deployCalls++
	if c.deployErr != nil {
		return common.Hash{}, common.Address{}, c.deployErr
	}
	c.lastHash = common.BigToHash(big.NewInt(int64(c.deployCalls)))
	if c.receipt == ports.TxSucceeded && c.deployOnTx {
		c.deployed = true
	}
	return c.lastHash, common.HexToAddress(testAddress), nil
}
func (c *scriptedChain) Receipt(_ context.Context, h common.Hash) (ports.Receipt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return ports.Receipt{TxHash: h, Status: c.receipt, FailureReason: "boom"}, nil
}
func (c *scriptedChain) send() (common.Hash, error) {
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
func (c *scriptedChain) SafeExecution(context.Context, common.Address, common.Hash) (common.Hash, bool, error) {
	return common.Hash{}, false, nil
}

func (c *scriptedChain) USDCTransferLogs(context.Context, uint64, uint64, []common.Address) ([]ports.TransferLog, error) {
	return c.logs, nil
}

type noJobs struct{}

func (noJobs) Enqueue(context.Context, ports.JobArgs, ports.JobOptions) error { return nil }

const testAddress = "0x52908400098527886E0F7030069857D2E4169EE7"

func newTestService(t *testing.T, chain *scriptedChain) (*Service, testStore, *fakeClock) {
	t.Helper()
	store := testStore{fake.NewStore()}
	clock := &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	a, err := New(Deps{Store: store, Jobs: noJobs{}, Clock: clock,
		Chains: map[core.Environment]ports.Chain{core.EnvTest: chain}})
	if err != nil {
		t.Fatal(err)
	}
	w := wallet.Wallet{ID: "wal_1", Environment: core.EnvTest, ChainID: wallet.SandboxChainID,
		Address: testAddress, Owners: []wallet.Owner{{Address: testAddress, Role: wallet.RoleAdminOwner}}, Threshold: 1,
		Status: wallet.StatusPendingDeployment, CreatedAt: clock.Now()}
	store.put(t, func(ctx context.Context, tx ports.Tx) error { return tx.Wallets().CreateWallet(ctx, w) })
	return a, store, clock
}

func TestDeployWorker_SubmitsAndConfirmsOnce(t *testing.T) {
	chain := &scriptedChain{receipt: ports.TxSucceeded, deployOnTx: true}
	a, store, _ := newTestService(t, chain)
	ctx := context.Background()
	if snooze, err := a.DeployWallet(ctx, "wal_1"); err != nil || snooze != 0 {
		t.Fatalf("step: %v %v", snooze, err)
	}
	w := store.wallet("wal_1")
	if w.Status != wallet.StatusDeployed || w.DeployAttempts != 1 || w.DeployTxHash != chain.lastHash.Hex() || w.DeployedAt == nil {
		t.Fatalf("wallet: %+v", w)
	}
	if _, err := a.DeployWallet(ctx, "wal_1"); err != nil || chain.deployCalls != 1 {
		t.Fatalf("a retried job sent again: %d calls, %v", chain.deployCalls, err)
	}
}

func TestDeployWorker_AlreadyDeployedIsConfirmedWithoutSending(t *testing.T) {
	chain := &scriptedChain{deployed: true}
	a, store, _ := newTestService(t, chain)
	if _, err := a.DeployWallet(context.Background(), "wal_1"); err != nil {
		t.Fatal(err)
	}
	if store.wallet("wal_1").Status != wallet.StatusDeployed || chain.deployCalls != 0 {
		t.Fatalf("wallet %+v after %d deploy calls", store.wallet("wal_1"), chain.deployCalls)
	}
}

func TestDeployWorker_FailsAfterBoundedResubmissions(t *testing.T) {
	chain := &scriptedChain{receipt: ports.TxFailed}
	a, store, _ := newTestService(t, chain)
	if _, err := a.DeployWallet(context.Background(), "wal_1"); err != nil {
		t.Fatal(err)
	}
	w := store.wallet("wal_1")
	if w.Status != wallet.StatusFailed || chain.deployCalls != wallet.MaxDeployAttempts || w.DeployAttempts != wallet.MaxDeployAttempts ||
		!strings.Contains(w.FailureReason, "failed 5 times") {
		t.Fatalf("wallet %+v after %d deploy calls", w, chain.deployCalls)
	}
}

func TestDeployWorker_PendingSnoozesThenTimesOut(t *testing.T) {
	chain := &scriptedChain{receipt: ports.TxPending}
	a, store, clock := newTestService(t, chain)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if snooze, err := a.DeployWallet(ctx, "wal_1"); err != nil || snooze <= 0 {
			t.Fatalf("pending step %d: %v %v", i, snooze, err)
		}
	}
	if w := store.wallet("wal_1"); w.Status != wallet.StatusDeploying || chain.deployCalls != 1 {
		t.Fatalf("waiting re-sent: %+v, %d calls", w, chain.deployCalls)
	}
	clock.advance(deployTimeout + time.Second)
	if snooze, err := a.DeployWallet(ctx, "wal_1"); err != nil || snooze != 0 {
		t.Fatalf("timed-out step: %v %v", snooze, err)
	}
	if w := store.wallet("wal_1"); w.Status != wallet.StatusFailed || !strings.Contains(w.FailureReason, "not mined") {
		t.Fatalf("wallet %+v", w)
	}
}

func TestDeployWorker_LastAttemptRecordsFailed(t *testing.T) {
	chain := &scriptedChain{deployErr: &ports.RevertError{Reason: "GS000"}}
	a, store, _ := newTestService(t, chain)
	ctx := context.Background()
	snooze, err := a.DeployWallet(ctx, "wal_1")
	giveUp := func(ctx context.Context, cause error) error { return a.GiveUpDeploy(ctx, "wal_1", cause) }
	if got := stepResult(ctx, 1, 3, snooze, err, giveUp); got == nil || store.wallet("wal_1").Status != wallet.StatusPendingDeployment {
		t.Fatalf("an early attempt must retry: %v %+v", got, store.wallet("wal_1"))
	}
	if got := stepResult(ctx, 3, 3, snooze, err, giveUp); got != nil {
		t.Fatalf("last attempt: %v", got)
	}
	if w := store.wallet("wal_1"); w.Status != wallet.StatusFailed || !strings.Contains(w.FailureReason, "GS000") {
		t.Fatalf("wallet %+v", w)
	}
}

func addDrip(t *testing.T, store testStore, asset wallet.Asset) {
	t.Helper()
	d := wallet.Drip{ID: "drp_1", Environment: core.EnvTest, WalletID: "wal_1", Address: testAddress,
		ChainID: wallet.SandboxChainID, Asset: asset, AmountBaseUnits: 5_000_000, Status: wallet.DripSubmitted}
	store.put(t, func(ctx context.Context, tx ports.Tx) error { return tx.Drips().CreateDrip(ctx, d) })
}

func TestDripWorker_SendsOnceAndConfirms(t *testing.T) {
	chain := &scriptedChain{receipt: ports.TxSucceeded}
	a, store, _ := newTestService(t, chain)
	addDrip(t, store, wallet.AssetUSDC)
	ctx := context.Background()
	if snooze, err := a.RunDrip(ctx, "drp_1"); err != nil || snooze != 0 {
		t.Fatalf("step: %v %v", snooze, err)
	}
	d := store.drip("drp_1")
	if d.Status != wallet.DripConfirmed || d.TxHash == "" || d.SendFromBlock != 10 || chain.sendCalls != 1 {
		t.Fatalf("drip %+v after %d sends", d, chain.sendCalls)
	}
	if _, err := a.RunDrip(ctx, "drp_1"); err != nil || chain.sendCalls != 1 {
		t.Fatalf("a retried job sent again: %d sends, %v", chain.sendCalls, err)
	}
}

func TestDripWorker_PendingWaitsWithoutResending(t *testing.T) {
	chain := &scriptedChain{receipt: ports.TxPending}
	a, store, _ := newTestService(t, chain)
	addDrip(t, store, wallet.AssetETH)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if snooze, err := a.RunDrip(ctx, "drp_1"); err != nil || snooze <= 0 {
			t.Fatalf("pending step %d: %v %v", i, snooze, err)
		}
	}
	chain.receipt = ports.TxFailed
	if _, err := a.RunDrip(ctx, "drp_1"); err != nil {
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
		if _, err := a.RunDrip(ctx, "drp_1"); err == nil {
			t.Fatal("an ambiguous send must fail the run")
		}
		mined := common.HexToHash("0xfeed")
		chain.logs = []ports.TransferLog{
			{TxHash: common.HexToHash("0xdead"), To: common.HexToAddress(testAddress), AmountBaseUnits: big.NewInt(4_000_000)},
			{TxHash: mined, To: common.HexToAddress(testAddress), AmountBaseUnits: big.NewInt(5_000_000)},
		}
		if _, err := a.RunDrip(ctx, "drp_1"); err != nil {
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
		_, _ = a.RunDrip(ctx, "drp_1")
		if snooze, err := a.RunDrip(ctx, "drp_1"); err != nil || snooze <= 0 {
			t.Fatalf("within grace: %v %v", snooze, err)
		}
		clock.advance(dripRecoveryGrace + time.Second)
		if _, err := a.RunDrip(ctx, "drp_1"); err != nil {
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
		_, _ = a.RunDrip(ctx, "drp_1")
		if _, err := a.RunDrip(ctx, "drp_1"); err != nil {
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
		if _, err := a.RunDrip(ctx, "drp_1"); err != nil {
			t.Fatal(err)
		}
		if d := store.drip("drp_1"); d.Status != wallet.DripFailed || !strings.Contains(d.FailureReason, "not minter") {
			t.Fatalf("drip %+v", d)
		}
	})
}
