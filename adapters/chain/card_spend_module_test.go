package chain

import (
	"crypto/ecdsa"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/ports"
)

func cardRef(seed string) [32]byte { return crypto.Keccak256Hash([]byte("card settlement " + seed)) }

// moduleSafe creates a 2-of-3 Safe that enabled the card module in its setup, holding 250 USDC.
func moduleSafe(t *testing.T, a *Adapter, walletID string) (common.Address, []*ecdsa.PrivateKey) {
	t.Helper()
	ctx := testContext(t)
	keys := ownerKeys(t)
	cfg := ports.SafeConfig{Owners: addressesOf(keys), Threshold: 2, SaltNonce: safe.SaltNonceFor(walletID), SetupModule: a.CardModuleAddress()}
	predicted, err := a.PredictSafeAddress(cfg)
	if err != nil {
		t.Fatal(err)
	}
	plain := cfg
	plain.SetupModule = common.Address{}
	if without, err := a.PredictSafeAddress(plain); err != nil || without == predicted {
		t.Fatalf("the module does not change the address: %s (%v)", without.Hex(), err)
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

// estimateFrom estimates a call to the module from any account: the contract's refusal as
// *ports.RevertError, nil when it would succeed.
func estimateFrom(t *testing.T, a *Adapter, from common.Address, data []byte) error {
	t.Helper()
	to := a.CardModuleAddress()
	_, err := a.client.EstimateGas(testContext(t), ethereum.CallMsg{From: from, To: &to, Data: data})
	if err == nil {
		return nil
	}
	return asRevert(err)
}

func TestCardSpendModule_SettleMovesUSDCToTheSettlementAddressOnce(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	if a.CardModuleAddress() == (common.Address{}) || a.CardModuleAddress() != a.Addresses().CardSpendModule {
		t.Fatalf("card module %s, addresses %+v", a.CardModuleAddress().Hex(), a.Addresses())
	}
	// The settlement address is the one the claim escrow refunds to: the relayer here.
	settlement := a.CardSettlementAddress()
	if settlement != a.RelayerAddress() || settlement != a.SettlementAddress() {
		t.Fatalf("card settlement %s, escrow settlement %s, relayer %s", settlement.Hex(), a.SettlementAddress().Hex(), a.RelayerAddress().Hex())
	}
	address, _ := moduleSafe(t, a, "wal_card")
	if enabled, err := a.CardModuleEnabled(ctx, address); err != nil || !enabled {
		t.Fatalf("module enabled = %v (%v), want true", enabled, err)
	}
	before, err := a.USDCBalance(ctx, settlement)
	if err != nil {
		t.Fatal(err)
	}
	from, _ := a.LatestBlock(ctx)
	ref := cardRef("one")

	hash, err := a.SettleCardSpend(ctx, address, usdc(40), ref)
	receipt := mustSucceed(t, a, hash, err)
	wantBalance(t, a, address, usdc(210))
	wantBalance(t, a, settlement, new(big.Int).Add(before, usdc(40)))
	recorded, err := a.CardSettlementOf(ctx, ref)
	if err != nil || recorded.Safe != address || recorded.AmountBaseUnits.Cmp(usdc(40)) != 0 {
		t.Fatalf("settlement record = %+v (%v)", recorded, err)
	}

	// The event and the USDC Transfer of the same transaction.
	latest, _ := a.LatestBlock(ctx)
	logs, err := a.CardSettlementLogs(ctx, from, latest)
	if err != nil || len(logs) != 1 {
		t.Fatalf("settlement logs = %+v (%v), want one", logs, err)
	}
	l := logs[0]
	if l.Safe != address || l.Ref != ref || l.AmountBaseUnits.Cmp(usdc(40)) != 0 || l.TxHash != hash || l.BlockNumber != receipt.BlockNumber || l.BlockHash == (common.Hash{}) {
		t.Errorf("settlement log = %+v", l)
	}
	transfers, err := a.USDCTransferLogs(ctx, receipt.BlockNumber, receipt.BlockNumber, []common.Address{address})
	if err != nil || len(transfers) != 1 || transfers[0].From != address || transfers[0].To != settlement ||
		transfers[0].TxHash != hash || transfers[0].AmountBaseUnits.Cmp(usdc(40)) != 0 {
		t.Errorf("transfer logs = %+v (%v), want the settlement's transfer", transfers, err)
	}

	// A retry sends nothing; the same reference with another amount or Safe is refused.
	wantNoOp(t, a, "settle", func() (common.Hash, error) { return a.SettleCardSpend(ctx, address, usdc(40), ref) })
	_, err = a.SettleCardSpend(ctx, address, usdc(41), ref)
	wantRevert(t, err, "CSM:refUsed")
	// The contract itself refuses a reused reference (the adapter's check aside).
	err = estimateFrom(t, a, a.RelayerAddress(), a.cardModule.PackSettle(address, usdc(1), ref))
	wantRevert(t, err, "CSM:refUsed")
	wantBalance(t, a, address, usdc(210))
}

func TestCardSpendModule_Refusals(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	address, keys := moduleSafe(t, a, "wal_card_refusals")
	operator := a.RelayerAddress()
	stranger := common.HexToAddress("0x00000000000000000000000000000000000005c1")

	// Only the operator settles.
	err := estimateFrom(t, a, stranger, a.cardModule.PackSettle(address, usdc(1), cardRef("stranger")))
	wantRevert(t, err, "CSM:operator")
	// Zero amount and zero reference: the contract refuses, and so does the adapter before sending.
	wantRevert(t, estimateFrom(t, a, operator, a.cardModule.PackSettle(address, new(big.Int), cardRef("zero"))), "CSM:zero")
	wantRevert(t, estimateFrom(t, a, operator, a.cardModule.PackSettle(address, usdc(1), [32]byte{})), "CSM:zero")
	if _, err := a.SettleCardSpend(ctx, address, new(big.Int), cardRef("zero")); err == nil {
		t.Error("a zero settlement was accepted")
	}
	// No contract at the address.
	_, err = a.SettleCardSpend(ctx, common.HexToAddress("0x00000000000000000000000000000000000005c2"), usdc(1), cardRef("nosafe"))
	wantRevert(t, err, "CSM:noSafe")
	// More than the Safe holds: the token's own reason comes through.
	_, err = a.SettleCardSpend(ctx, address, usdc(251), cardRef("too much"))
	var revert *ports.RevertError
	if !errors.As(err, &revert) || !strings.Contains(revert.Reason, "exceeds balance") {
		t.Errorf("settling more than the balance: err = %v, want the token's balance revert", err)
	}
	// enableOnSetup called directly (not by a Safe's setup delegatecall).
	wantRevert(t, estimateFrom(t, a, stranger, a.cardModule.PackEnableOnSetup()), "CSM:direct")

	// A Safe set up without the module cannot be settled from.
	plain, _ := deployedSafe(t, a, "wal_plain")
	if enabled, err := a.CardModuleEnabled(ctx, plain); err != nil || enabled {
		t.Errorf("plain Safe: module enabled = %v (%v), want false", enabled, err)
	}
	_, err = a.SettleCardSpend(ctx, plain, usdc(1), cardRef("plain"))
	wantRevert(t, err, "GS104")
	wantBalance(t, a, plain, usdc(250))

	// An undeployed address has no module enabled.
	if enabled, err := a.CardModuleEnabled(ctx, stranger); err != nil || enabled {
		t.Errorf("undeployed: module enabled = %v (%v), want false", enabled, err)
	}

	// The owners disable the module with a Safe transaction; settling is refused from then on.
	disable := safe.Transaction{
		To: address, Value: new(big.Int), Data: a.safeL2.PackDisableModule(common.HexToAddress("0x1"), a.CardModuleAddress()),
		Operation: safe.Call, Nonce: 0,
	}
	txHash, err := a.SafeTransactionHash(ctx, address, disable)
	if err != nil {
		t.Fatal(err)
	}
	hash, err := a.ExecSafeTransaction(ctx, address, disable, signAll(t, txHash, keys[0], keys[1]))
	mustSucceed(t, a, hash, err)
	if enabled, err := a.CardModuleEnabled(ctx, address); err != nil || enabled {
		t.Fatalf("after disableModule: enabled = %v (%v), want false", enabled, err)
	}
	_, err = a.SettleCardSpend(ctx, address, usdc(1), cardRef("after disable"))
	wantRevert(t, err, "GS104")
	wantBalance(t, a, address, usdc(250))
}

func TestCardSpendModule_ConcurrentRetriesSendOnce(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	address, _ := moduleSafe(t, a, "wal_card_concurrent")
	ref := cardRef("concurrent")
	var wg sync.WaitGroup
	hashes := make([]common.Hash, 8)
	errs := make([]error, len(hashes))
	for i := range hashes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hashes[i], errs[i] = a.SettleCardSpend(ctx, address, usdc(5), ref)
		}()
	}
	wg.Wait()
	var sent common.Hash
	for i, err := range errs {
		if err != nil {
			t.Fatalf("settle %d: %v", i, err)
		}
		if hashes[i] == (common.Hash{}) {
			continue
		}
		if sent != (common.Hash{}) && hashes[i] != sent {
			t.Fatalf("two settlement transactions: %s and %s", sent.Hex(), hashes[i].Hex())
		}
		sent = hashes[i]
	}
	if sent == (common.Hash{}) {
		t.Fatal("no settlement was sent")
	}
	wantBalance(t, a, address, usdc(245))
}

func TestCardSpendModule_NotConfigured(t *testing.T) {
	a := newChain(t)
	ctx := testContext(t)
	addrs := a.Addresses()
	addrs.CardSpendModule = common.Address{}
	bare, err := New(ctx, a.client, a.relay.key, addrs, a.relay.afterSend)
	if err != nil {
		t.Fatal(err)
	}
	if bare.CardModuleAddress() != (common.Address{}) || bare.CardSettlementAddress() != (common.Address{}) {
		t.Fatalf("unconfigured module: %s %s", bare.CardModuleAddress().Hex(), bare.CardSettlementAddress().Hex())
	}
	safeAddress := common.HexToAddress("0x00000000000000000000000000000000000005c3")
	for name, call := range map[string]func() error{
		"enabled": func() error { _, err := bare.CardModuleEnabled(ctx, safeAddress); return err },
		"settle":  func() error { _, err := bare.SettleCardSpend(ctx, safeAddress, usdc(1), cardRef("bare")); return err },
		"read":    func() error { _, err := bare.CardSettlementOf(ctx, cardRef("bare")); return err },
		"logs":    func() error { _, err := bare.CardSettlementLogs(ctx, 0, 1); return err },
	} {
		if err := call(); !errors.Is(err, ErrCardModuleNotConfigured) {
			t.Errorf("%s: err = %v, want ErrCardModuleNotConfigured", name, err)
		}
	}
	if _, err := a.CardSettlementLogs(ctx, 10, 9); err == nil {
		t.Error("backwards range accepted")
	}
	if _, err := a.CardSettlementLogs(ctx, 0, ports.MaxLogBlockRange); err == nil {
		t.Error("range over MaxLogBlockRange accepted")
	}

	// A module configured at an address without one is refused at start-up.
	addrs.CardSpendModule = common.HexToAddress("0x00000000000000000000000000000000000005c4")
	if _, err := New(ctx, a.client, a.relay.key, addrs, a.relay.afterSend); err == nil || !strings.Contains(err.Error(), "CardSpendModule") {
		t.Errorf("New with a missing module: err = %v", err)
	}
}
