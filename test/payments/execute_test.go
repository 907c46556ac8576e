package payments

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

// transferData is token.transfer(to, amount) ABI-encoded by hand: selector, then two words.
func transferData(to common.Address, amount *big.Int) []byte {
	data := crypto.Keccak256([]byte("transfer(address,uint256)"))[:4]
	data = append(data, common.LeftPadBytes(to.Bytes(), 32)...)
	return append(data, common.LeftPadBytes(amount.Bytes(), 32)...)
}

// typedDataHash hashes the SafeTx with go-ethereum's generic EIP-712 code, as a wallet's
// eth_signTypedData_v4 would: an independent computation of the safeTxHash.
func typedDataHash(t *testing.T, chainID int64, safeAddress, token, to common.Address, amount *big.Int, nonce uint64) common.Hash {
	t.Helper()
	doc := fmt.Sprintf(`{
	  "types": {
	    "EIP712Domain": [{"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}],
	    "SafeTx": [
	      {"name": "to", "type": "address"}, {"name": "value", "type": "uint256"},
	      {"name": "data", "type": "bytes"}, {"name": "operation", "type": "uint8"},
	      {"name": "safeTxGas", "type": "uint256"}, {"name": "baseGas", "type": "uint256"},
	      {"name": "gasPrice", "type": "uint256"}, {"name": "gasToken", "type": "address"},
	      {"name": "refundReceiver", "type": "address"}, {"name": "nonce", "type": "uint256"}]
	  },
	  "primaryType": "SafeTx",
	  "domain": {"chainId": "%d", "verifyingContract": "%s"},
	  "message": {"to": "%s", "value": "0", "data": "0x%s", "operation": "0", "safeTxGas": "0", "baseGas": "0",
	    "gasPrice": "0", "gasToken": "%s", "refundReceiver": "%s", "nonce": "%d"}
	}`, chainID, safeAddress.Hex(), token.Hex(), hex.EncodeToString(transferData(to, amount)),
		common.Address{}.Hex(), common.Address{}.Hex(), nonce)
	var typed apitypes.TypedData
	if err := json.Unmarshal([]byte(doc), &typed); err != nil {
		t.Fatal(err)
	}
	hash, _, err := apitypes.TypedDataAndHash(typed)
	if err != nil {
		t.Fatal(err)
	}
	return common.BytesToHash(hash)
}

// TestPayments_EndToEnd: a funded 2-of-3 Safe pays an address. The safeTxHash matches two
// independent computations; wrong signatures are refused; two owner signatures auto-execute;
// the USDC moves on chain.
func TestPayments_EndToEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ten := env().NewTenant(t)
	owners := newOwners(t, 3)
	w := newWallet(t, ten, owners, 2, "100")
	to := randomAddress(t)
	body := toAddress(w, to, "12.5")
	body["memo"] = "invoice 42"
	pay := propose(t, ten.Root, body)

	for field, want := range map[string]any{
		"status": "AWAITING_SIGNATURE", "sourceWalletId": w.ID, "destinationType": "address",
		"destinationHandle": nil, "destinationAddress": to.Hex(), "destinationChainId": float64(84532),
		"asset": "usdc", "amount": "12.5", "executedTxHash": nil, "memo": "invoice 42",
		"failureReason": nil, "safeNonce": float64(0), "threshold": float64(2),
	} {
		if pay[field] != want {
			t.Errorf("%s = %v, want %v", field, pay[field], want)
		}
	}
	if id, _ := pay["id"].(string); !strings.HasPrefix(id, "pay_") {
		t.Errorf("id %q", id)
	}
	if _, ok := pay["createdAt"].(string); !ok {
		t.Error("createdAt missing")
	}

	// The hash owners sign is Safe's own: the contract's getTransactionHash and a generic
	// EIP-712 implementation agree with it for the same inputs.
	chain := env().Chain
	amount := usdc(t, "12.5")
	tx := safe.Transaction{To: chain.USDCAddress(), Value: new(big.Int), Data: transferData(to, amount), Nonce: 0}
	onChain, err := chain.SafeTransactionHash(ctx, w.Address, tx)
	if err != nil {
		t.Fatal(err)
	}
	if got := common.HexToHash(pay["safeTxHash"].(string)); got != onChain {
		t.Fatalf("safeTxHash %s, Safe.getTransactionHash %s", got, onChain)
	}
	if typed := typedDataHash(t, 84532, w.Address, chain.USDCAddress(), to, amount, 0); typed != onChain {
		t.Fatalf("EIP-712 typed data hash %s, Safe %s", typed, onChain)
	}

	id := pay["id"].(string)
	first := sign(t, ten.Root, pay, owners[0]).Expect(t, 200).JSON(t)
	if first["status"] != "AWAITING_SIGNATURE" || len(first["signatures"].([]any)) != 1 {
		t.Fatalf("after one of two signatures: %v", first)
	}
	refusals(t, ten.Root, pay, owners)

	balanceBefore := balance(t, w.Address)
	second := sign(t, ten.Root, pay, owners[2]).Expect(t, 200).JSON(t)
	if s := second["status"]; s != "READY_TO_EXECUTE" && s != "EXECUTING" && s != "COMPLETED" {
		t.Fatalf("after the threshold signature: %v", second)
	}
	done := waitStatus(t, ten.Root, id, "COMPLETED")
	txHash, _ := done["executedTxHash"].(string)
	receipt, err := chain.Receipt(ctx, common.HexToHash(txHash))
	if err != nil || receipt.Status != ports.TxSucceeded {
		t.Fatalf("receipt of %q: %+v %v", txHash, receipt, err)
	}
	if got := balance(t, to); got.Cmp(amount) != 0 {
		t.Errorf("destination holds %s, want %s", got, amount)
	}
	if got := new(big.Int).Sub(balanceBefore, balance(t, w.Address)); got.Cmp(amount) != 0 {
		t.Errorf("Safe paid out %s, want %s", got, amount)
	}
	if n := safeNonce(t, w.Address); n != 1 {
		t.Errorf("Safe nonce %d, want 1", n)
	}

	// A finished payment takes no signature, execute or cancel.
	sign(t, ten.Root, pay, owners[1]).ExpectError(t, 409, "INVALID_STATE")
	ten.Root.Post("/v1/payments/"+id+"/execute", nil).ExpectError(t, 409, "INVALID_STATE")
	ten.Root.Post("/v1/payments/"+id+"/cancel", nil).ExpectError(t, 409, "INVALID_STATE")
}

// refusals sends wrong signatures to a payment that owners[0] has signed.
func refusals(t *testing.T, c *harness.Client, pay map[string]any, owners []owner) {
	t.Helper()
	path := "/v1/payments/" + pay["id"].(string) + "/sign"
	hash := common.HexToHash(pay["safeTxHash"].(string))
	prefixed := crypto.Keccak256Hash([]byte("\x19Ethereum Signed Message:\n32"), hash.Bytes())
	personal, err := safe.Sign(prefixed, owners[1].key)
	if err != nil {
		t.Fatal(err)
	}
	ethSign := personal
	ethSign[64] += 4 // Safe's eth_sign encoding: v 31/32
	raw, _ := safe.Sign(hash, owners[1].key)
	recoveryID := raw
	recoveryID[64] -= 27
	stranger, _ := safe.Sign(hash, newOwners(t, 1)[0].key)

	reasons := map[string]string{
		personal.Hex():                      "PERSONAL_SIGN",
		ethSign.Hex():                       "ETH_SIGN",
		recoveryID.Hex():                    "RECOVERY_BYTE",
		"0x1234":                            "MALFORMED",
		"0x" + strings.Repeat("zz", 65):     "MALFORMED",
		strings.TrimPrefix(raw.Hex(), "0x"): "MALFORMED",
	}
	for sig, reason := range reasons {
		m := c.Post(path, map[string]any{"signature": sig}).ExpectError(t, 400, "VALIDATION_FAILED")
		details, _ := m["details"].(map[string]any)
		if details["reason"] != reason || harness.Field(m, "signature") == "" {
			t.Errorf("signature %s…: details %v, want reason %s on field signature", sig[:min(12, len(sig))], details, reason)
		}
	}
	m := c.Post(path, map[string]any{"signature": stranger.Hex()}).ExpectError(t, 422, "SIGNER_NOT_OWNER")
	if details, _ := m["details"].(map[string]any); details["signer"] == nil {
		t.Errorf("non-owner refusal names no signer: %v", m)
	}
	sign(t, c, pay, owners[0]).ExpectError(t, 409, "SIGNATURE_DUPLICATE")
	c.Post(path, map[string]any{}).ExpectError(t, 400, "VALIDATION_FAILED")
	if got := c.Get("/v1/payments/"+pay["id"].(string)).Expect(t, 200).JSON(t); len(got["signatures"].([]any)) != 1 {
		t.Fatalf("a refused signature was recorded: %v", got)
	}
}

// TestPayments_RacingExecutes: many explicit executes race the auto-execute of the threshold
// signature; exactly one Safe transaction is executed.
func TestPayments_RacingExecutes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ten := env().NewTenant(t)
	owners := newOwners(t, 3)
	w := newWallet(t, ten, owners, 2, "50")
	to := randomAddress(t)
	startBlock, err := env().Chain.LatestBlock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pay := propose(t, ten.Root, toAddress(w, to, "7"))
	id := pay["id"].(string)
	sign(t, ten.Root, pay, owners[1]).Expect(t, 200)

	const racers = 12
	statuses := make(chan int, racers+1)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < racers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r := ten.Root.Post("/v1/payments/"+id+"/execute", map[string]any{"ownerAddress": owners[0].address.Hex()})
			if r.Status != 200 {
				r.ExpectError(t, 409, "INVALID_STATE")
			}
			statuses <- r.Status
		}()
	}
	sign(t, ten.Root, pay, owners[2]).Expect(t, 200) // reaches the threshold: auto-execute
	close(start)
	wg.Wait()
	close(statuses)
	won := 0
	for s := range statuses {
		if s == 200 {
			won++
		}
	}
	if won > 1 {
		t.Fatalf("%d explicit executes moved the payment to EXECUTING", won)
	}
	t.Logf("explicit executes that claimed the payment: %d of %d (else the auto-execute did)", won, racers)
	done := waitStatus(t, ten.Root, id, "COMPLETED")
	if n := safeNonce(t, w.Address); n != 1 {
		t.Fatalf("Safe nonce %d after one payment, want 1", n)
	}
	latest, _ := env().Chain.LatestBlock(ctx)
	logs, err := env().Chain.USDCTransferLogs(ctx, startBlock, latest, []common.Address{w.Address})
	if err != nil {
		t.Fatal(err)
	}
	var out []ports.TransferLog
	for _, l := range logs {
		if l.From == w.Address {
			out = append(out, l)
		}
	}
	if len(out) != 1 || out[0].TxHash.Hex() != done["executedTxHash"] || out[0].AmountBaseUnits.Cmp(usdc(t, "7")) != 0 {
		t.Fatalf("want exactly one transfer out, in %v; got %+v", done["executedTxHash"], out)
	}
}

// TestPayments_QueueCancelAndGaps walks the nonce queue: a later payment waits for the earlier
// one, the newest is cancelled without a rejection, a revert fails the payment and the ones queued behind
// it (NONCE_GAP), the freed nonce is reused, and a completion starts the next ready payment.
func TestPayments_QueueCancelAndGaps(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	owners := newOwners(t, 1)
	w := newWallet(t, ten, owners, 1, "10")
	to := randomAddress(t)
	o := owners[0]

	tooBig := propose(t, ten.Root, toAddress(w, to, "50")) // nonce 0, more than the Safe holds
	second := propose(t, ten.Root, toAddress(w, to, "1"))  // nonce 1
	third := propose(t, ten.Root, toAddress(w, to, "2"))   // nonce 2
	for i, p := range []map[string]any{tooBig, second, third} {
		if p["safeNonce"] != float64(i) {
			t.Fatalf("payment %d has nonce %v", i, p["safeNonce"])
		}
	}
	secondID, thirdID := second["id"].(string), third["id"].(string)

	// The second is ready but queued behind nonce 0: it waits, and explicit execute says why.
	if s := sign(t, ten.Root, second, o).Expect(t, 200).JSON(t)["status"]; s != "READY_TO_EXECUTE" {
		t.Fatalf("second after its signature: %v", s)
	}
	m := ten.Root.Post("/v1/payments/"+secondID+"/execute", nil).ExpectError(t, 409, "INVALID_STATE")
	if d := m["details"].(map[string]any); d["currentSafeNonce"] != float64(0) || d["safeNonce"] != float64(1) {
		t.Fatalf("queued execute details: %v", d)
	}

	// The newest queued payment is cancelled outright: nothing waits behind its nonce, so no
	// rejection is proposed (TestPayments_CancelQueuedPaymentProposesARejection covers the rest).
	ten.Root.Post("/v1/payments/"+thirdID+"/cancel", map[string]any{"ownerAddress": randomAddress(t).Hex()}).
		ExpectError(t, 422, "SIGNER_NOT_OWNER")
	if c := ten.Root.Post("/v1/payments/"+thirdID+"/cancel", map[string]any{"ownerAddress": o.address.Hex()}).Expect(t, 200).JSON(t); c["status"] != "CANCELLED" || c["rejectionPaymentId"] != nil {
		t.Fatalf("cancel newest: %v, rejection %v", c["status"], c["rejectionPaymentId"])
	}
	ten.Root.Post("/v1/payments/"+thirdID+"/cancel", nil).ExpectError(t, 409, "INVALID_STATE")
	sign(t, ten.Root, third, o).ExpectError(t, 409, "INVALID_STATE")

	// The first reverts on chain (the Safe holds 10, not 50): FAILED with Safe's reason, and
	// the second, which could now never execute, fails with NONCE_GAP.
	sign(t, ten.Root, tooBig, o).Expect(t, 200)
	failed := waitStatus(t, ten.Root, tooBig["id"].(string), "FAILED")
	if r, _ := failed["failureReason"].(string); !strings.HasPrefix(r, "GS013") {
		t.Fatalf("failureReason %q, want Safe's GS013", r)
	}
	gap := waitStatus(t, ten.Root, secondID, "FAILED")
	if r, _ := gap["failureReason"].(string); !strings.HasPrefix(r, "NONCE_GAP: ") || !strings.Contains(r, tooBig["id"].(string)) {
		t.Fatalf("failureReason %q, want NONCE_GAP naming the failed payment", r)
	}
	if n := safeNonce(t, w.Address); n != 0 {
		t.Fatalf("Safe nonce %d, want 0", n)
	}

	// Nonce 0 is free again. A payment at nonce 1 signed first waits; completing nonce 0
	// starts it.
	fourth := propose(t, ten.Root, toAddress(w, to, "3"))
	fifth := propose(t, ten.Root, toAddress(w, to, "4"))
	if fourth["safeNonce"] != float64(0) || fifth["safeNonce"] != float64(1) {
		t.Fatalf("nonces after the gap: %v, %v", fourth["safeNonce"], fifth["safeNonce"])
	}
	sign(t, ten.Root, fifth, o).Expect(t, 200)
	sign(t, ten.Root, fourth, o).Expect(t, 200)
	waitStatus(t, ten.Root, fourth["id"].(string), "COMPLETED")
	waitStatus(t, ten.Root, fifth["id"].(string), "COMPLETED")
	if got, want := balance(t, to), usdc(t, "7"); got.Cmp(want) != 0 {
		t.Fatalf("destination holds %s, want %s", got, want)
	}
	if n := safeNonce(t, w.Address); n != 2 {
		t.Fatalf("Safe nonce %d, want 2", n)
	}
}

// TestPayments_CancelQueuedPaymentProposesARejection: any pending payment can be cancelled,
// also one with later payments queued behind its Safe nonce. Its nonce goes to a rejection
// transaction (a zero-value call of the Safe itself) that the owners sign; once it executes, the
// later payments execute with the signatures they already hold, and the cancelled payment's
// transfer never happens.
func TestPayments_CancelQueuedPaymentProposesARejection(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	owners := newOwners(t, 1)
	w := newWallet(t, ten, owners, 1, "10")
	to := randomAddress(t)
	o := owners[0]

	first := propose(t, ten.Root, toAddress(w, to, "1"))  // nonce 0
	second := propose(t, ten.Root, toAddress(w, to, "2")) // nonce 1
	third := propose(t, ten.Root, toAddress(w, to, "3"))  // nonce 2
	sign(t, ten.Root, second, o).Expect(t, 200)
	sign(t, ten.Root, third, o).Expect(t, 200)
	firstID := first["id"].(string)

	cancelled := ten.Root.Post("/v1/payments/"+firstID+"/cancel", nil).Expect(t, 200).JSON(t)
	rejectionID, _ := cancelled["rejectionPaymentId"].(string)
	if cancelled["status"] != "CANCELLED" || rejectionID == "" {
		t.Fatalf("cancel of the oldest queued payment: status %v, rejectionPaymentId %v", cancelled["status"], cancelled["rejectionPaymentId"])
	}
	rejection := ten.Root.Get("/v1/payments/"+rejectionID).Expect(t, 200).JSON(t)
	call, _ := rejection["transaction"].(map[string]any)
	if rejection["status"] != "AWAITING_SIGNATURE" || rejection["safeNonce"] != float64(0) || rejection["kind"] != "transaction" ||
		rejection["amount"] != "0" || rejection["rejectsPaymentId"] != firstID || call == nil ||
		!strings.EqualFold(call["to"].(string), w.Address.Hex()) || call["value"] != "0" || call["data"] != "0x" {
		t.Fatalf("rejection: %v", rejection)
	}
	for _, p := range []map[string]any{second, third} {
		got := ten.Root.Get("/v1/payments/"+p["id"].(string)).Expect(t, 200).JSON(t)
		if got["status"] != "READY_TO_EXECUTE" || got["safeNonce"] != p["safeNonce"] || got["safeTxHash"] != p["safeTxHash"] {
			t.Fatalf("a later payment changed when an earlier one was cancelled: %v", got)
		}
	}
	sign(t, ten.Root, first, o).ExpectError(t, 409, "INVALID_STATE")

	sign(t, ten.Root, rejection, o).Expect(t, 200)
	waitStatus(t, ten.Root, rejectionID, "COMPLETED")
	waitStatus(t, ten.Root, second["id"].(string), "COMPLETED")
	waitStatus(t, ten.Root, third["id"].(string), "COMPLETED")
	if got, want := balance(t, to), usdc(t, "5"); got.Cmp(want) != 0 {
		t.Fatalf("destination holds %s, want %s (the cancelled 1 must never arrive)", got, want)
	}
	if n := safeNonce(t, w.Address); n != 3 {
		t.Fatalf("Safe nonce %d, want 3", n)
	}
	if s := ten.Root.Get("/v1/payments/"+firstID).Expect(t, 200).JSON(t)["status"]; s != "CANCELLED" {
		t.Fatalf("cancelled payment is %v", s)
	}
}

// TestPayments_SingleOwnerSmallestAmount: execute before the threshold is refused; one
// signature of a 1-of-1 Safe executes the smallest USDC amount.
func TestPayments_SingleOwnerSmallestAmount(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	owners := newOwners(t, 1)
	w := newWallet(t, ten, owners, 1, "5")
	pay := propose(t, ten.Root, toAddress(w, randomAddress(t), "0.000001"))
	ten.Root.Post("/v1/payments/"+pay["id"].(string)+"/execute", nil).ExpectError(t, 409, "INVALID_STATE")
	got := sign(t, ten.Root, pay, owners[0]).Expect(t, http.StatusOK).JSON(t)
	if got["amount"] != "0.000001" {
		t.Fatalf("amount %v", got["amount"])
	}
	waitStatus(t, ten.Root, pay["id"].(string), "COMPLETED")
}
