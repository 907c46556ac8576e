package payments

import (
	"context"
	"encoding/hex"
	"math/big"
	"net/http"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/test/harness"
)

// TestTransactions_ExecuteAContractCall proposes USDC.transfer(recipient, 1.25) as an
// arbitrary Safe transaction (to = the token, data = the encoded call), queues a USDC payment
// behind it on the next nonce, and has both signed and executed through the payment routes:
// the call really runs on the chain.
func TestTransactions_ExecuteAContractCall(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	owners := newOwners(t, 1)
	w := newWallet(t, ten, owners, 1, "10")
	recipient := randomAddress(t)
	token := env().Chain.USDCAddress()
	data := "0x" + hex.EncodeToString(transferData(recipient, usdc(t, "1.25")))

	tx := ten.Root.Post("/v1/wallets/"+w.ID+"/transactions", map[string]any{"to": token.Hex(), "data": data, "memo": "a call"}).
		Expect(t, http.StatusCreated).JSON(t)
	call, _ := tx["transaction"].(map[string]any)
	if tx["kind"] != "transaction" || tx["status"] != "AWAITING_SIGNATURE" || tx["amount"] != "0" || tx["destinationAddress"] != token.Hex() ||
		call["to"] != token.Hex() || call["value"] != "0" || call["data"] != data || call["operation"] != "CALL" {
		t.Fatalf("proposal: %v", tx)
	}
	// The same nonce queue as payments: the next payment takes the next nonce.
	pay := propose(t, ten.Root, toAddress(w, recipient, "2"))
	if pay["kind"] != "transfer" || pay["transaction"] != nil || pay["safeNonce"].(float64) != tx["safeNonce"].(float64)+1 {
		t.Fatalf("queued payment: %v (transaction nonce %v)", pay, tx["safeNonce"])
	}
	if got := ten.Root.Get("/v1/payments/"+tx["id"].(string)).Expect(t, http.StatusOK).JSON(t); got["kind"] != "transaction" {
		t.Fatalf("get: %v", got)
	}

	sign(t, ten.Root, tx, owners[0]).Expect(t, http.StatusOK)
	done := waitStatus(t, ten.Root, tx["id"].(string), "COMPLETED")
	if done["executedTxHash"] == nil {
		t.Fatalf("executed: %v", done)
	}
	if got := balance(t, recipient); got.Cmp(usdc(t, "1.25")) != 0 {
		t.Fatalf("recipient holds %s base units after the call, want 1.25 USDC", got)
	}
	sign(t, ten.Root, pay, owners[0]).Expect(t, http.StatusOK)
	waitStatus(t, ten.Root, pay["id"].(string), "COMPLETED")
	if got, want := balance(t, recipient), usdc(t, "3.25"); got.Cmp(want) != 0 {
		t.Fatalf("recipient holds %s, want %s", got, want)
	}
	if got, want := balance(t, w.Address), new(big.Int).Sub(usdc(t, "10"), usdc(t, "3.25")); got.Cmp(want) != 0 {
		t.Fatalf("Safe holds %s, want %s", got, want)
	}
	// The ledger mirror books what the call moved: the wallet's ledger balance follows the Safe.
	if err := env().Service.Mirror.RequestChainIndex(context.Background(), core.EnvTest); err != nil {
		t.Fatal(err)
	}
	harness.Poll(t, "the mirror books the call", func() map[string]any {
		return ten.Root.Get("/v1/ledger/reconciliation").Expect(t, http.StatusOK).JSON(t)
	}, func(r map[string]any) bool {
		for _, x := range r["wallets"].([]any) {
			if m := x.(map[string]any); m["walletId"] == w.ID {
				return m["ledgerBalance"] == "6.75" && m["drift"] == "0"
			}
		}
		return false
	})
}

func TestTransactions_Validation(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	owners := newOwners(t, 1)
	w := newWallet(t, ten, owners, 1, "")
	to := randomAddress(t).Hex()
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{}, "to"},
		{map[string]any{"to": "0x0000000000000000000000000000000000000000"}, "to"},
		{map[string]any{"to": to, "operation": "DELEGATECALL"}, "operation"},
		{map[string]any{"to": to, "data": "0xabc"}, "data"},
		{map[string]any{"to": to, "value": "-1"}, "value"},
	} {
		e := ten.Root.Post("/v1/wallets/"+w.ID+"/transactions", c.body).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
		if harness.Field(e, c.field) == "" {
			t.Errorf("%v: no reason for %s: %v", c.body, c.field, e)
		}
	}
	// A call of the Safe itself (owner management) is refused.
	ten.Root.Post("/v1/wallets/"+w.ID+"/transactions", map[string]any{"to": w.Address.Hex()}).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	env().NewTenant(t).Root.Post("/v1/wallets/"+w.ID+"/transactions", map[string]any{"to": to}).ExpectError(t, http.StatusNotFound, "WALLET_NOT_FOUND")
	if list := ten.Root.Get("/v1/payments").Expect(t, http.StatusOK).JSON(t); list["total"] != float64(0) {
		t.Fatalf("refused proposals recorded %v payments", list["total"])
	}
	// A transaction declares no USDC amount, so with approval on at all it needs approval.
	ten.Root.Do(http.MethodPut, "/v1/twofactor/settings", map[string]any{"approvalAboveUsd": "1000000"}).Expect(t, http.StatusOK)
	ten.Root.Post("/v1/wallets/"+w.ID+"/transactions", map[string]any{"to": to}).ExpectError(t, http.StatusForbidden, "TWOFA_NOT_ENROLLED")
}
