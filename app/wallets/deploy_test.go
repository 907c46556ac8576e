package wallets

import (
	"context"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// Worker-level tests of the deployment steps, with in-memory fakes for the store and
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
func (c *scriptedChain) LatestBlock(context.Context) (uint64, error) { return 10, nil }
func (c *scriptedChain) SafeExecution(context.Context, common.Address, common.Hash) (common.Hash, bool, error) {
	return common.Hash{}, false, nil
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
	if snooze, err := a.DeployWallet(ctx, "", "wal_1"); err != nil || snooze != 0 {
		t.Fatalf("step: %v %v", snooze, err)
	}
	w := store.wallet("wal_1")
	if w.Status != wallet.StatusDeployed || w.DeployAttempts != 1 || w.DeployTxHash != chain.lastHash.Hex() || w.DeployedAt == nil {
		t.Fatalf("wallet: %+v", w)
	}
	if _, err := a.DeployWallet(ctx, "", "wal_1"); err != nil || chain.deployCalls != 1 {
		t.Fatalf("a retried job sent again: %d calls, %v", chain.deployCalls, err)
	}
}

func TestDeployWorker_AlreadyDeployedIsConfirmedWithoutSending(t *testing.T) {
	chain := &scriptedChain{deployed: true}
	a, store, _ := newTestService(t, chain)
	if _, err := a.DeployWallet(context.Background(), "", "wal_1"); err != nil {
		t.Fatal(err)
	}
	if store.wallet("wal_1").Status != wallet.StatusDeployed || chain.deployCalls != 0 {
		t.Fatalf("wallet %+v after %d deploy calls", store.wallet("wal_1"), chain.deployCalls)
	}
}

func TestDeployWorker_FailsAfterBoundedResubmissions(t *testing.T) {
	chain := &scriptedChain{receipt: ports.TxFailed}
	a, store, _ := newTestService(t, chain)
	if _, err := a.DeployWallet(context.Background(), "", "wal_1"); err != nil {
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
		if snooze, err := a.DeployWallet(ctx, "", "wal_1"); err != nil || snooze <= 0 {
			t.Fatalf("pending step %d: %v %v", i, snooze, err)
		}
	}
	if w := store.wallet("wal_1"); w.Status != wallet.StatusDeploying || chain.deployCalls != 1 {
		t.Fatalf("waiting re-sent: %+v, %d calls", w, chain.deployCalls)
	}
	clock.advance(deployTimeout + time.Second)
	if snooze, err := a.DeployWallet(ctx, "", "wal_1"); err != nil || snooze != 0 {
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
	snooze, err := a.DeployWallet(ctx, "", "wal_1")
	giveUp := func(ctx context.Context, cause error) error { return a.GiveUpDeploy(ctx, "", "wal_1", cause) }
	if got := kernel.StepOrGiveUp(ctx, 1, 3, snooze, err, giveUp); got == nil || store.wallet("wal_1").Status != wallet.StatusPendingDeployment {
		t.Fatalf("an early attempt must retry: %v %+v", got, store.wallet("wal_1"))
	}
	if got := kernel.StepOrGiveUp(ctx, 3, 3, snooze, err, giveUp); got != nil {
		t.Fatalf("last attempt: %v", got)
	}
	if w := store.wallet("wal_1"); w.Status != wallet.StatusFailed || !strings.Contains(w.FailureReason, "GS000") {
		t.Fatalf("wallet %+v", w)
	}
}
