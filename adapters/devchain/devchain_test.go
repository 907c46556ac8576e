package devchain

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/adapters/chain"
	"github.com/corridorhq/corridor/ports"
)

// gethBinary finds bin/geth at the module root (or GETH_BINARY), or skips: CI does not build
// geth, and `make test` must not need it.
func gethBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a geth process")
	}
	if path := os.Getenv("GETH_BINARY"); path != "" {
		return path
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
	}
	path := filepath.Join(dir, "bin", "geth")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no geth at %s: run `make geth` to build it (go-ethereum v1.17.8), or set GETH_BINARY", path)
	}
	return path
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestDevchain_StartDeployRestart: a fresh directory gets a chain with id 84532 and the
// contracts; a second Ensure while it runs reuses it; after a stop and a start the contracts
// and the balances they hold are still there and nothing is deployed again.
func TestDevchain_StartDeployRestart(t *testing.T) {
	binary := gethBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := Options{DataDir: filepath.Join(t.TempDir(), "chain"), Binary: binary, Port: freePort(t), Logf: t.Logf}

	first, err := Ensure(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = first.Stop(context.Background()) })
	if !first.StartedHere() {
		t.Fatal("the first Ensure should have started geth")
	}
	adapter, err := first.Dial(ctx, chain.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if adapter.ChainID() != 84532 {
		t.Fatalf("chain id %d, want 84532", adapter.ChainID())
	}
	holder := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	hash, err := adapter.MintUSDC(ctx, holder, big.NewInt(42_000_000))
	if err != nil {
		t.Fatal(err)
	}
	awaitReceipt(t, ctx, adapter, hash)
	adapter.Close()

	again, err := Ensure(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if again.StartedHere() || again.Port() != first.Port() || again.Addresses() != first.Addresses() {
		t.Fatalf("second Ensure: startedHere=%v port=%d addresses=%+v; want the running node reused", again.StartedHere(), again.Port(), again.Addresses())
	}

	stopCtx, stopCancel := context.WithTimeout(ctx, DefaultStopTimeout)
	defer stopCancel()
	if err := first.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}
	if answers(ctx, first.Port()) {
		t.Fatal("geth still answers after Stop")
	}

	restarted, err := Ensure(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = restarted.Stop(context.Background()) })
	if !restarted.StartedHere() || restarted.Addresses() != first.Addresses() {
		t.Fatalf("restart: startedHere=%v addresses=%+v, want %+v", restarted.StartedHere(), restarted.Addresses(), first.Addresses())
	}
	adapter, err = restarted.Dial(ctx, chain.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer adapter.Close()
	balance, err := adapter.USDCBalance(ctx, holder)
	if err != nil || balance.Int64() != 42_000_000 {
		t.Fatalf("USDC balance after restart = %v (%v), want 42000000", balance, err)
	}
	recorded, err := ReadAddresses(filepath.Join(opts.DataDir, AddressesFile))
	if err != nil || recorded.ChainID != 84532 || recorded.Addresses != first.Addresses() {
		t.Fatalf("addresses.json = %+v (%v)", recorded, err)
	}
	if fi, err := os.Stat(filepath.Join(opts.DataDir, relayerKeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("relayer.key: %v, mode %v; want 0600", err, fi.Mode())
	}

	// A wiped chain (chaindata deleted, keys and records kept) gets a fresh genesis and the
	// contracts again.
	adapter.Close()
	if err := restarted.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(opts.DataDir, "geth", "chaindata")); err != nil {
		t.Fatal(err)
	}
	wiped, err := Ensure(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = wiped.Stop(context.Background()) })
	adapter, err = wiped.Dial(ctx, chain.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer adapter.Close()
	if balance, err := adapter.USDCBalance(ctx, holder); err != nil || balance.Sign() != 0 {
		t.Fatalf("USDC balance on the wiped chain = %v (%v), want 0", balance, err)
	}
}

// awaitReceipt polls until the transaction is mined successfully.
func awaitReceipt(t *testing.T, ctx context.Context, a *chain.Adapter, hash common.Hash) {
	t.Helper()
	for {
		r, err := a.Receipt(ctx, hash)
		switch {
		case err != nil:
			t.Fatal(err)
		case r.Status == ports.TxSucceeded:
			return
		case r.Status == ports.TxFailed:
			t.Fatalf("transaction %s failed: %s", hash.Hex(), r.FailureReason)
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestDevchain_AddsTheEscrowToAnOlderRecord: a dev chain recorded before the claim escrow and
// the card spend module existed keeps its contracts and gets just those two, which then work on
// the real node: the escrow funds and releases a claim (mint, approval and fund each mined in
// turn), and the module settles card spend from a Safe that enabled it in its setup.
func TestDevchain_AddsTheEscrowToAnOlderRecord(t *testing.T) {
	binary := gethBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := Options{DataDir: filepath.Join(t.TempDir(), "chain"), Binary: binary, Port: freePort(t), Logf: t.Logf}
	first, err := Ensure(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = first.Stop(context.Background()) })
	if first.Addresses().ClaimEscrow == (common.Address{}) || first.Addresses().CardSpendModule == (common.Address{}) {
		t.Fatalf("a fresh dev chain lacks the claim escrow or the card module: %+v", first.Addresses())
	}

	// Rewrite addresses.json as it was before the escrow: no claimEscrow (nor cardSpendModule)
	// key at all.
	path := filepath.Join(opts.DataDir, AddressesFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	delete(fields, "claimEscrow")
	delete(fields, "cardSpendModule")
	delete(fields, "checkoutFactory")
	if raw, err = json.Marshal(fields); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}

	upgraded, err := Ensure(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, want := upgraded.Addresses(), first.Addresses()
	if got.ClaimEscrow == (common.Address{}) || got.ClaimEscrow == want.ClaimEscrow {
		t.Fatalf("escrow after the upgrade = %s, want a new deployment (the old one was %s)", got.ClaimEscrow.Hex(), want.ClaimEscrow.Hex())
	}
	if got.CardSpendModule == (common.Address{}) || got.CardSpendModule == want.CardSpendModule {
		t.Fatalf("card module after the upgrade = %s, want a new deployment (the old one was %s)", got.CardSpendModule.Hex(), want.CardSpendModule.Hex())
	}
	if got.CheckoutFactory == (common.Address{}) || got.CheckoutFactory == want.CheckoutFactory {
		t.Fatalf("checkout factory after the upgrade = %s, want a new deployment (the old one was %s)", got.CheckoutFactory.Hex(), want.CheckoutFactory.Hex())
	}
	want.ClaimEscrow, want.CardSpendModule, want.CheckoutFactory = got.ClaimEscrow, got.CardSpendModule, got.CheckoutFactory
	if got != want {
		t.Fatalf("addresses after the upgrade = %+v, want the old ones plus the escrow %+v", got, want)
	}
	if recorded, err := ReadAddresses(path); err != nil || recorded.Addresses != got {
		t.Fatalf("addresses.json = %+v (%v), want %+v", recorded, err, got)
	}
	if again, err := Ensure(ctx, opts); err != nil || again.Addresses() != got {
		t.Fatalf("third Ensure: %+v (%v), want nothing deployed", again.Addresses(), err)
	}

	adapter, err := upgraded.Dial(ctx, chain.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer adapter.Close()
	id := crypto.Keccak256Hash([]byte("dev chain claim"))
	hash, err := adapter.FundClaim(ctx, id, big.NewInt(5_000_000), time.Now().Add(time.Hour), crypto.Keccak256Hash([]byte("metadata")))
	if err != nil {
		t.Fatal(err)
	}
	awaitReceipt(t, ctx, adapter, hash)
	recipient := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	hash, err = adapter.ReleaseClaim(ctx, id, recipient, crypto.Keccak256Hash([]byte("decision")))
	if err != nil {
		t.Fatal(err)
	}
	awaitReceipt(t, ctx, adapter, hash)
	if c, err := adapter.EscrowClaim(ctx, id); err != nil || c.State != ports.EscrowReleased {
		t.Fatalf("escrow claim = %+v (%v), want RELEASED", c, err)
	}
	if balance, err := adapter.USDCBalance(ctx, recipient); err != nil || balance.Int64() != 5_000_000 {
		t.Fatalf("recipient balance = %v (%v), want 5000000", balance, err)
	}

	// A Safe that enabled the card module in its setup pays a settlement without its owner.
	owner := crypto.PubkeyToAddress(mustKey(developerKey).PublicKey)
	cfg := ports.SafeConfig{Owners: []common.Address{owner}, Threshold: 1, SaltNonce: big.NewInt(7), SetupModule: adapter.CardModuleAddress()}
	safeAddress, err := adapter.PredictSafeAddress(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hash, err = adapter.MintUSDC(ctx, safeAddress, big.NewInt(9_000_000))
	if err != nil {
		t.Fatal(err)
	}
	awaitReceipt(t, ctx, adapter, hash)
	hash, _, err = adapter.DeploySafe(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	awaitReceipt(t, ctx, adapter, hash)
	if enabled, err := adapter.CardModuleEnabled(ctx, safeAddress); err != nil || !enabled {
		t.Fatalf("card module enabled = %v (%v), want true", enabled, err)
	}
	hash, err = adapter.SettleCardSpend(ctx, safeAddress, big.NewInt(4_000_000), crypto.Keccak256Hash([]byte("dev chain card")))
	if err != nil {
		t.Fatal(err)
	}
	awaitReceipt(t, ctx, adapter, hash)
	if balance, err := adapter.USDCBalance(ctx, safeAddress); err != nil || balance.Int64() != 5_000_000 {
		t.Fatalf("Safe balance after the settlement = %v (%v), want 5000000", balance, err)
	}
}

// TestDevchain_RedeploysAChangedCheckoutFactory: a dev chain whose recorded checkout factory was
// built from other code (a record from before refunds went through the factory has no
// checkoutFactoryCode) gets the current factory, keeping every other contract; the adapter
// then pays a refund through it on the real node, once.
func TestDevchain_RedeploysAChangedCheckoutFactory(t *testing.T) {
	binary := gethBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := Options{DataDir: filepath.Join(t.TempDir(), "chain"), Binary: binary, Port: freePort(t), Logf: t.Logf}
	first, err := Ensure(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = first.Stop(context.Background()) })
	path := filepath.Join(opts.DataDir, AddressesFile)
	recorded, err := ReadAddresses(path)
	if err != nil || recorded.CheckoutFactoryCode == (common.Hash{}) {
		t.Fatalf("a fresh record %+v (%v) lacks the factory's code hash", recorded, err)
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	delete(fields, "checkoutFactoryCode")
	if raw, err = json.Marshal(fields); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}

	upgraded, err := Ensure(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, want := upgraded.Addresses(), first.Addresses()
	if got.CheckoutFactory == (common.Address{}) || got.CheckoutFactory == want.CheckoutFactory {
		t.Fatalf("checkout factory after the upgrade = %s, want a new deployment (the old one was %s)", got.CheckoutFactory.Hex(), want.CheckoutFactory.Hex())
	}
	want.CheckoutFactory = got.CheckoutFactory
	if got != want {
		t.Fatalf("addresses after the upgrade = %+v, want the old ones and a new factory %+v", got, want)
	}
	if again, err := ReadAddresses(path); err != nil || again.Addresses != got || again.CheckoutFactoryCode != recorded.CheckoutFactoryCode {
		t.Fatalf("addresses.json = %+v (%v), want %+v with code %s", again, err, got, recorded.CheckoutFactoryCode.Hex())
	}

	adapter, err := upgraded.Dial(ctx, chain.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer adapter.Close()
	hash, err := adapter.MintUSDC(ctx, adapter.RelayerAddress(), big.NewInt(2_000_000))
	if err != nil {
		t.Fatal(err)
	}
	awaitReceipt(t, ctx, adapter, hash)
	id := crypto.Keccak256Hash([]byte("crf_dev_chain"))
	to := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	if hash, err = adapter.RefundCheckout(ctx, id, to, big.NewInt(2_000_000)); err != nil {
		t.Fatal(err)
	}
	awaitReceipt(t, ctx, adapter, hash)
	if again, err := adapter.RefundCheckout(ctx, id, to, big.NewInt(2_000_000)); err != nil || again != (common.Hash{}) {
		t.Fatalf("second refund of one id: %s (%v), want nothing sent", again.Hex(), err)
	}
	if balance, err := adapter.USDCBalance(ctx, to); err != nil || balance.Int64() != 2_000_000 {
		t.Fatalf("refunded balance = %v (%v), want 2000000", balance, err)
	}
}

// TestDevchain_NeverAttachesToAnotherCheckoutsNode: checkout A's chain runs on a port. Checkout
// B's geth started on that same port (B lost the race between choosing a free port and geth's
// bind) dies with "address already in use" while A's node answers there; B's start fails
// naming the other checkout's chain instead of taking A's node for its own. B's Ensure with no
// port asked for then comes up on a port of its own, beside A.
func TestDevchain_NeverAttachesToAnotherCheckoutsNode(t *testing.T) {
	binary := gethBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a, err := Ensure(ctx, Options{DataDir: filepath.Join(t.TempDir(), "a"), Binary: binary, Port: freePort(t), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Stop(context.Background()) })

	dirB := filepath.Join(t.TempDir(), "b")
	if err := os.MkdirAll(dirB, 0o700); err != nil {
		t.Fatal(err)
	}
	key, err := loadOrCreateKey(filepath.Join(dirB, relayerKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	b := &Chain{dataDir: dirB, relayerKey: key, logf: t.Logf}
	if err := b.initGenesis(ctx, binary); err != nil {
		t.Fatal(err)
	}
	err = b.start(ctx, binary, a.Port())
	if !errors.Is(err, ErrForeignNode) {
		t.Fatalf("B's geth on A's port: %v, want ErrForeignNode", err)
	}

	other, err := Ensure(ctx, Options{DataDir: dirB, Binary: binary, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Stop(context.Background()) })
	if other.Port() == a.Port() || !other.StartedHere() {
		t.Fatalf("B came up on %d (started here %v), A is on %d", other.Port(), other.StartedHere(), a.Port())
	}
	if err := other.hasOurGenesis(ctx, other.Port()); err != nil {
		t.Fatal(err)
	}
	if err := a.hasOurGenesis(ctx, other.Port()); !errors.Is(err, ErrForeignNode) {
		t.Fatalf("A's genesis check of B's node: %v", err)
	}
}
