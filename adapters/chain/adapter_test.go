package chain

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/ports"
)

// TestMain refuses to run without the contract build, with the one instruction that fixes it,
// instead of failing every test with the same message (or, worse, skipping them).
func TestMain(m *testing.M) {
	dir, err := DefaultArtifactsDir()
	if err == nil {
		_, err = LoadArtifacts(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "adapters/chain: the tests need the contract build:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// newChain starts a simulated chain with the contracts deployed. A missing contracts/build fails
// the test with the instruction to run `make contracts`; it never skips.
func newChain(t *testing.T) *Adapter {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, err := NewSimulated(ctx, SimulatedOptions{})
	if err != nil {
		t.Fatalf("starting the simulated chain: %v", err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// ownerKeys are three fixed owner keys, as a partner's signers would hold them.
func ownerKeys(t *testing.T) []*ecdsa.PrivateKey {
	t.Helper()
	var keys []*ecdsa.PrivateKey
	for _, seed := range []string{"owner one", "owner two", "owner three"} {
		key, err := crypto.ToECDSA(crypto.Keccak256([]byte(seed)))
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
	}
	return keys
}

func addressesOf(keys []*ecdsa.PrivateKey) []common.Address {
	out := make([]common.Address, len(keys))
	for i, k := range keys {
		out[i] = crypto.PubkeyToAddress(k.PublicKey)
	}
	return out
}

func usdc(units int64) *big.Int { return big.NewInt(units * 1_000_000) }

func mustSucceed(t *testing.T, a *Adapter, hash common.Hash, err error) ports.Receipt {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	receipt, err := a.Receipt(context.Background(), hash)
	if err != nil {
		t.Fatal(err)
	}
	if receipt.Status != ports.TxSucceeded || receipt.BlockNumber == 0 {
		t.Fatalf("transaction %s: %+v", hash.Hex(), receipt)
	}
	return receipt
}

func wantBalance(t *testing.T, a *Adapter, who common.Address, want *big.Int) {
	t.Helper()
	got, err := a.USDCBalance(context.Background(), who)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cmp(want) != 0 {
		t.Errorf("USDC balance of %s = %s, want %s", who.Hex(), got, want)
	}
}

// deployedSafe creates a 2-of-3 Safe holding 250 USDC, funded before deployment.
func deployedSafe(t *testing.T, a *Adapter, walletID string) (common.Address, []*ecdsa.PrivateKey) {
	t.Helper()
	ctx := testContext(t)
	keys := ownerKeys(t)
	cfg := ports.SafeConfig{Owners: addressesOf(keys), Threshold: 2, SaltNonce: safe.SaltNonceFor(walletID)}
	predicted, err := a.PredictSafeAddress(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hash, err := a.MintUSDC(ctx, predicted, usdc(250))
	mustSucceed(t, a, hash, err)
	hash, address, err := a.DeploySafe(ctx, cfg)
	mustSucceed(t, a, hash, err)
	if address != predicted {
		t.Fatalf("deployed at %s, predicted %s", address.Hex(), predicted.Hex())
	}
	return address, keys
}

func signAll(t *testing.T, hash common.Hash, keys ...*ecdsa.PrivateKey) []byte {
	t.Helper()
	var signed []safe.OwnerSignature
	for _, key := range keys {
		sig, err := safe.Sign(hash, key)
		if err != nil {
			t.Fatal(err)
		}
		signed = append(signed, safe.OwnerSignature{Signer: crypto.PubkeyToAddress(key.PublicKey), Signature: sig})
	}
	packed, err := safe.PackSignatures(signed)
	if err != nil {
		t.Fatal(err)
	}
	return packed
}

func TestSafe_PredictFundDeployAndPay(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	keys := ownerKeys(t)
	owners := addressesOf(keys)
	cfg := ports.SafeConfig{Owners: owners, Threshold: 2, SaltNonce: safe.SaltNonceFor("wal_flow")}

	predicted, err := a.PredictSafeAddress(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if deployed, err := a.IsDeployed(ctx, predicted); err != nil || deployed {
		t.Fatalf("predicted address already has code (%v)", err)
	}

	// Fund the address before the Safe exists: USDC from the faucet and ETH.
	hash, err := a.MintUSDC(ctx, predicted, usdc(250))
	mustSucceed(t, a, hash, err)
	hash, err = a.SendETH(ctx, predicted, big.NewInt(20_000_000_000_000_000))
	mustSucceed(t, a, hash, err)

	hash, address, err := a.DeploySafe(ctx, cfg)
	mustSucceed(t, a, hash, err)
	if address != predicted {
		t.Fatalf("deployed at %s, predicted %s", address.Hex(), predicted.Hex())
	}
	wantBalance(t, a, address, usdc(250))
	if eth, err := a.ETHBalance(ctx, address); err != nil || eth.Cmp(big.NewInt(20_000_000_000_000_000)) != 0 {
		t.Errorf("ETH balance = %v (%v), want 0.02 ETH", eth, err)
	}
	onChainOwners, err := a.SafeOwners(ctx, address)
	if err != nil || !sameAddressSet(onChainOwners, owners) {
		t.Errorf("owners = %v (%v), want %v", onChainOwners, err, owners)
	}
	if threshold, err := a.SafeThreshold(ctx, address); err != nil || threshold != 2 {
		t.Errorf("threshold = %d (%v), want 2", threshold, err)
	}

	// A retried deployment sends nothing and reports the same address.
	again, sameAddress, err := a.DeploySafe(ctx, cfg)
	if err != nil || again != (common.Hash{}) || sameAddress != address {
		t.Errorf("second DeploySafe = %s, %s, %v; want zero hash, same address", again.Hex(), sameAddress.Hex(), err)
	}

	// Pay 100 USDC out of the Safe with two of three owner signatures.
	recipient := common.HexToAddress("0x000000000000000000000000000000000000bEEF")
	tx, err := safe.TokenTransfer(a.USDCAddress(), recipient, usdc(100), 0)
	if err != nil {
		t.Fatal(err)
	}
	safeTxHash := safe.TransactionHash(a.ChainID(), address, tx)
	contractHash, err := a.SafeTransactionHash(ctx, address, tx)
	if err != nil {
		t.Fatal(err)
	}
	if safeTxHash != contractHash {
		t.Fatalf("core/safe hash %s, Safe.getTransactionHash %s", safeTxHash.Hex(), contractHash.Hex())
	}
	var signed []safe.OwnerSignature
	for _, key := range []*ecdsa.PrivateKey{keys[2], keys[0]} {
		sig, err := safe.Sign(safeTxHash, key)
		if err != nil {
			t.Fatal(err)
		}
		signer, parsed, err := safe.VerifyOwnerSignature(safeTxHash, sig.Hex(), onChainOwners)
		if err != nil {
			t.Fatal(err)
		}
		signed = append(signed, safe.OwnerSignature{Signer: signer, Signature: parsed})
	}
	packed, err := safe.PackSignatures(signed)
	if err != nil {
		t.Fatal(err)
	}
	execHash, err := a.ExecSafeTransaction(ctx, address, tx, packed)
	execReceipt := mustSucceed(t, a, execHash, err)
	wantBalance(t, a, address, usdc(150))
	wantBalance(t, a, recipient, usdc(100))
	if nonce, err := a.SafeNonce(ctx, address); err != nil || nonce != 1 {
		t.Errorf("Safe nonce = %d (%v), want 1", nonce, err)
	}

	// The ledger indexer sees the faucet mint and the payment as Transfer logs.
	latest, err := a.LatestBlock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	logs, err := a.USDCTransferLogs(ctx, 0, latest, []common.Address{address})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 2 {
		t.Fatalf("logs = %+v, want the mint and the payment", logs)
	}
	mint, payment := logs[0], logs[1]
	if mint.From != (common.Address{}) || mint.To != address || mint.AmountBaseUnits.Cmp(usdc(250)) != 0 {
		t.Errorf("mint log = %+v", mint)
	}
	if payment.From != address || payment.To != recipient || payment.AmountBaseUnits.Cmp(usdc(100)) != 0 ||
		payment.TxHash != execHash || payment.BlockNumber != execReceipt.BlockNumber {
		t.Errorf("payment log = %+v", payment)
	}
	onlyRecipient, err := a.USDCTransferLogs(ctx, 0, latest, []common.Address{recipient})
	if err != nil || len(onlyRecipient) != 1 || !sameLog(onlyRecipient[0], payment) {
		t.Errorf("logs for the recipient = %+v (%v), want only the payment", onlyRecipient, err)
	}
	all, err := a.USDCTransferLogs(ctx, execReceipt.BlockNumber, execReceipt.BlockNumber, nil)
	if err != nil || len(all) != 1 || !sameLog(all[0], payment) {
		t.Errorf("all logs of the payment block = %+v (%v)", all, err)
	}

	// Executing the same SafeTx again is answered with the first transaction, nothing is sent.
	again, err = a.ExecSafeTransaction(ctx, address, tx, packed)
	if err != nil || again != execHash {
		t.Errorf("repeat exec = %s, %v; want %s", again.Hex(), err, execHash.Hex())
	}
	if after, _ := a.LatestBlock(ctx); after != latest {
		t.Errorf("repeat exec mined block %d", after)
	}
}

func sameLog(a, b ports.TransferLog) bool {
	amountsEqual := a.AmountBaseUnits.Cmp(b.AmountBaseUnits) == 0
	a.AmountBaseUnits, b.AmountBaseUnits = nil, nil
	return amountsEqual && a == b
}

func TestSafe_PersonalSignIsRefusedAndWouldRevert(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	address, keys := deployedSafe(t, a, "wal_personal")
	tx, err := safe.TokenTransfer(a.USDCAddress(), common.HexToAddress("0xbeef"), usdc(1), 0)
	if err != nil {
		t.Fatal(err)
	}
	safeTxHash := safe.TransactionHash(a.ChainID(), address, tx)

	// What a wallet's personal_sign / signMessage(safeTxHash) produces.
	prefixed := crypto.Keccak256Hash([]byte("\x19Ethereum Signed Message:\n32"), safeTxHash.Bytes())
	personal, err := safe.Sign(prefixed, keys[1])
	if err != nil {
		t.Fatal(err)
	}
	owners, err := a.SafeOwners(ctx, address)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = safe.VerifyOwnerSignature(safeTxHash, personal.Hex(), owners)
	var sigErr *safe.SignatureError
	if !errors.As(err, &sigErr) || sigErr.Problem != safe.ProblemPersonalSign {
		t.Fatalf("personal_sign signature: err = %v, want PERSONAL_SIGN", err)
	}

	// Sent anyway, Safe recovers a non-owner and the execution reverts with GS026: nothing is
	// mined and the nonce stays.
	good, err := safe.Sign(safeTxHash, keys[0])
	if err != nil {
		t.Fatal(err)
	}
	packed, err := safe.PackSignatures([]safe.OwnerSignature{
		{Signer: crypto.PubkeyToAddress(keys[0].PublicKey), Signature: good},
		{Signer: crypto.PubkeyToAddress(keys[1].PublicKey), Signature: personal},
	})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := a.LatestBlock(ctx)
	_, err = a.ExecSafeTransaction(ctx, address, tx, packed)
	var revert *ports.RevertError
	if !errors.As(err, &revert) || revert.Reason != "GS026" || !strings.Contains(err.Error(), "owner") {
		t.Fatalf("exec with a personal_sign signature: err = %v, want a GS026 revert", err)
	}
	if after, _ := a.LatestBlock(ctx); after != before {
		t.Errorf("a reverting execution was mined")
	}
	if nonce, _ := a.SafeNonce(ctx, address); nonce != 0 {
		t.Errorf("nonce moved to %d", nonce)
	}
}

func TestSafe_ConcurrentExecutesSendOneTransaction(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	address, keys := deployedSafe(t, a, "wal_race")
	recipient := common.HexToAddress("0x000000000000000000000000000000000000cafe")
	tx, err := safe.TokenTransfer(a.USDCAddress(), recipient, usdc(40), 0)
	if err != nil {
		t.Fatal(err)
	}
	packed := signAll(t, safe.TransactionHash(a.ChainID(), address, tx), keys[0], keys[1])
	relayerNonce, err := a.client.PendingNonceAt(ctx, a.RelayerAddress())
	if err != nil {
		t.Fatal(err)
	}

	const racers = 4
	hashes := make([]common.Hash, racers)
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hashes[i], errs[i] = a.ExecSafeTransaction(ctx, address, tx, packed)
		}()
	}
	wg.Wait()
	for i := range racers {
		if errs[i] != nil || hashes[i] != hashes[0] {
			t.Errorf("racer %d: %s, %v; want %s", i, hashes[i].Hex(), errs[i], hashes[0].Hex())
		}
	}
	mustSucceed(t, a, hashes[0], nil)
	if after, _ := a.client.PendingNonceAt(ctx, a.RelayerAddress()); after != relayerNonce+1 {
		t.Errorf("relayer sent %d transactions, want 1", after-relayerNonce)
	}
	wantBalance(t, a, recipient, usdc(40))
	wantBalance(t, a, address, usdc(210))

	// Another SafeTx at the spent nonce is refused before anything is sent.
	stale, err := safe.TokenTransfer(a.USDCAddress(), recipient, usdc(41), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.ExecSafeTransaction(ctx, address, stale, signAll(t, safe.TransactionHash(a.ChainID(), address, stale), keys[0], keys[1]))
	if !errors.Is(err, ports.ErrSafeNonceUsed) {
		t.Errorf("exec at a used nonce: err = %v, want ErrSafeNonceUsed", err)
	}
}

func TestSafe_InnerFailureWithSafeTxGasIsAFailedReceipt(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	address, keys := deployedSafe(t, a, "wal_inner_failure")
	// More than the Safe holds; with safeTxGas set Safe does not revert but emits ExecutionFailure.
	tx, err := safe.TokenTransfer(a.USDCAddress(), common.HexToAddress("0xbeef"), usdc(1000), 0)
	if err != nil {
		t.Fatal(err)
	}
	tx.SafeTxGas = big.NewInt(100_000)
	hash, err := a.ExecSafeTransaction(ctx, address, tx, signAll(t, safe.TransactionHash(a.ChainID(), address, tx), keys[1], keys[2]))
	if err != nil {
		t.Fatal(err)
	}
	receipt, err := a.Receipt(ctx, hash)
	if err != nil || receipt.Status != ports.TxFailed || !strings.Contains(receipt.FailureReason, "ExecutionFailure") {
		t.Errorf("receipt = %+v (%v), want FAILED with ExecutionFailure", receipt, err)
	}
	wantBalance(t, a, address, usdc(250))
}

func TestSafe_ExecOnAnUndeployedAddressSaysSo(t *testing.T) {
	a := newChain(t)
	tx, _ := safe.TokenTransfer(a.USDCAddress(), common.HexToAddress("0xbeef"), usdc(1), 0)
	_, err := a.ExecSafeTransaction(testContext(t), common.HexToAddress("0x1234"), tx, make([]byte, 65))
	if err == nil || !strings.Contains(err.Error(), "no Safe deployed") {
		t.Errorf("err = %v, want 'no Safe deployed'", err)
	}
}

func TestReceipt_UnknownTransactionIsPending(t *testing.T) {
	a := newChain(t)
	receipt, err := a.Receipt(testContext(t), common.HexToHash("0x1234"))
	if err != nil || receipt.Status != ports.TxPending {
		t.Errorf("receipt = %+v (%v), want PENDING", receipt, err)
	}
}

func TestRelayer_ConcurrentSendsGetDistinctNonces(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	recipient := common.HexToAddress("0x000000000000000000000000000000000000f00d")
	const senders = 12
	var wg sync.WaitGroup
	hashes := make([]common.Hash, senders)
	errs := make([]error, senders)
	for i := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hashes[i], errs[i] = a.MintUSDC(ctx, recipient, usdc(1))
		}()
	}
	wg.Wait()
	seen := map[common.Hash]bool{}
	for i := range senders {
		mustSucceed(t, a, hashes[i], errs[i])
		seen[hashes[i]] = true
	}
	if len(seen) != senders {
		t.Errorf("%d distinct transactions, want %d", len(seen), senders)
	}
	wantBalance(t, a, recipient, usdc(senders))
}

func TestRelayer_RecoversFromNonceTooLow(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	// Prime the relayer's local nonce, then spend that nonce behind its back (another process
	// with the same key), so its next send hits "nonce too low".
	hash, err := a.SendETH(ctx, common.HexToAddress("0x01"), big.NewInt(1))
	mustSucceed(t, a, hash, err)
	nonce, err := a.client.PendingNonceAt(ctx, a.RelayerAddress())
	if err != nil {
		t.Fatal(err)
	}
	tip, feeCap, err := a.relay.fees(ctx)
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0x02")
	outside, err := types.SignNewTx(a.relay.key, a.relay.signer, &types.DynamicFeeTx{
		ChainID: a.relay.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 21_000, To: &to, Value: big.NewInt(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.client.SendTransaction(ctx, outside); err != nil {
		t.Fatal(err)
	}
	a.relay.afterSend()

	hash, err = a.SendETH(ctx, common.HexToAddress("0x03"), big.NewInt(1))
	mustSucceed(t, a, hash, err)
}

func TestUSDCTransferLogs_Bounds(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	if _, err := a.USDCTransferLogs(ctx, 10, 9, nil); err == nil {
		t.Error("backwards range accepted")
	}
	if _, err := a.USDCTransferLogs(ctx, 0, ports.MaxLogBlockRange, nil); err == nil {
		t.Error("range over MaxLogBlockRange accepted")
	}
	latest, err := a.LatestBlock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if logs, err := a.USDCTransferLogs(ctx, 0, latest, nil); err != nil || len(logs) != 0 {
		t.Errorf("logs of a chain without transfers = %v, %v", logs, err)
	}
	if _, err := a.USDCTransferLogs(ctx, 0, 1, make([]common.Address, ports.MaxLogParties+1)); err == nil {
		t.Error("too many parties accepted")
	}
}

func TestTestUSDC_OnlyTheMinterMints(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	stranger, _ := crypto.GenerateKey()
	// Without the escrow, the card module and the checkout factory: New refuses those operated
	// by another key.
	addrs := a.Addresses()
	addrs.ClaimEscrow, addrs.CardSpendModule, addrs.CheckoutFactory = common.Address{}, common.Address{}, common.Address{}
	other, err := New(ctx, a.client, stranger, addrs, a.relay.afterSend)
	if err != nil {
		t.Fatal(err)
	}
	_, err = other.MintUSDC(ctx, common.HexToAddress("0xbeef"), usdc(1))
	var revert *ports.RevertError
	if !errors.As(err, &revert) || !strings.Contains(revert.Reason, "not the minter") {
		t.Errorf("mint by a stranger: err = %v, want a 'not the minter' revert", err)
	}
}

func TestArtifacts_MissingBuildSaysRunMakeContracts(t *testing.T) {
	_, err := LoadArtifacts(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "make contracts") {
		t.Errorf("err = %v, want advice to run make contracts", err)
	}
	t.Setenv(ArtifactsDirEnv, "/elsewhere")
	if dir, err := DefaultArtifactsDir(); err != nil || dir != "/elsewhere" {
		t.Errorf("DefaultArtifactsDir = %s, %v", dir, err)
	}
}

func TestArtifacts_DefaultDirIsModuleContractsBuild(t *testing.T) {
	dir, err := DefaultArtifactsDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(dir)), "go.mod")); err != nil || filepath.Base(dir) != "build" {
		t.Errorf("default artifacts dir %s is not <module>/contracts/build", dir)
	}
}

// sameAddressSet reports whether a and b hold the same addresses in any order.
func sameAddressSet(a, b []common.Address) bool {
	if len(a) != len(b) {
		return false
	}
	sorted := func(in []common.Address) []common.Address {
		out := append([]common.Address(nil), in...)
		sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i][:], out[j][:]) < 0 })
		return out
	}
	sa, sb := sorted(a), sorted(b)
	for i := range sa {
		if sa[i] != sb[i] {
			return false
		}
	}
	return true
}

// TestSafeExecution_FindsTheExecutingTransaction: after an execution, SafeExecution names the
// transaction that executed the safeTxHash; an unexecuted hash is not found.
func TestSafeExecution_FindsTheExecutingTransaction(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	address, keys := deployedSafe(t, a, "wal_adopt")
	recipient := common.HexToAddress("0x000000000000000000000000000000000000beef")
	tx, err := safe.TokenTransfer(a.USDCAddress(), recipient, usdc(5), 0)
	if err != nil {
		t.Fatal(err)
	}
	safeTxHash := safe.TransactionHash(a.ChainID(), address, tx)
	if _, found, err := a.SafeExecution(ctx, address, safeTxHash); err != nil || found {
		t.Fatalf("before execution: found=%v err=%v", found, err)
	}
	hash, err := a.ExecSafeTransaction(ctx, address, tx, signAll(t, safeTxHash, keys[0], keys[1]))
	mustSucceed(t, a, hash, err)
	got, found, err := a.SafeExecution(ctx, address, safeTxHash)
	if err != nil || !found || got != hash {
		t.Fatalf("SafeExecution = %s, %v, %v; want %s", got.Hex(), found, err, hash.Hex())
	}
	other := safe.TransactionHash(a.ChainID(), address, safe.Transaction{To: recipient, Value: new(big.Int), Nonce: 7})
	if _, found, err := a.SafeExecution(ctx, address, other); err != nil || found {
		t.Fatalf("an unexecuted hash: found=%v err=%v", found, err)
	}
}

// TestDial_ErrorsDoNotCarryTheEndpointSecret: an API key in the RPC URL's path or query never
// appears in an error (which jobs log and store).
func TestDial_ErrorsDoNotCarryTheEndpointSecret(t *testing.T) {
	secretURL := "http://127.0.0.1:1/v2/SECRET_PATH_KEY?apikey=SECRET_QUERY_KEY"
	_, err := Dial(testContext(t), secretURL, nil, Addresses{}, DialOptions{})
	if err == nil {
		t.Fatal("dialling a closed port succeeded")
	}
	if strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("error carries the secret: %v", err)
	}
	client, err := dialRedacted(testContext(t), secretURL, DefaultRPCTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	_, err = client.ChainID(testContext(t))
	if err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("call error %v: want the host, never the secret", err)
	}
}
