package cards

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/test/harness"
)

// TestCards_SafePaymentCannotSpendHeldUSDC: USDC that approved authorizations hold on a wallet
// is not spendable by a Safe payment from it. With all 5 USDC held, a payment of 5 signed by the
// owner (threshold met, so it executes by itself) fails INSUFFICIENT_FUNDS before anything is
// sent: the Safe keeps its 5, and a capture of a held authorization settles on chain with zero
// drift. Once the other holds are reversed, a payment of what is free executes.
func TestCards_SafePaymentCannotSpendHeldUSDC(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 5)
	id := issue(t, ten.Root, w, map[string]any{})["cardId"].(string)
	var auths []string
	for range 5 {
		a := authorize(t, ten.Root, id, "1", "5411")
		if a["status"] != "APPROVED" {
			t.Fatalf("authorize: %v", a)
		}
		auths = append(auths, a["authorizationId"].(string))
	}
	if b := mirrorBalance(t, w.ID); b.Posted != 5_000_000 || b.PendingDebits != 5_000_000 {
		t.Fatalf("mirror with five holds: %+v", b)
	}

	payee, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	to := crypto.PubkeyToAddress(payee.PublicKey)
	pay := func(amount string) map[string]any {
		p := ten.Root.Post("/v1/payments", map[string]any{"sourceWalletId": w.ID,
			"destination": map[string]any{"type": "address", "address": to.Hex(), "chainId": 84532},
			"amount":      map[string]any{"value": amount}}).Expect(t, 201).JSON(t)
		sig, err := safe.Sign(common.HexToHash(p["safeTxHash"].(string)), w.Owner)
		if err != nil {
			t.Fatal(err)
		}
		ten.Root.Post("/v1/payments/"+p["id"].(string)+"/sign", map[string]any{"signature": sig.Hex()}).Expect(t, http.StatusOK)
		return harness.Poll(t, "payment "+p["id"].(string)+" final", func() map[string]any {
			return ten.Root.Get("/v1/payments/"+p["id"].(string)).Expect(t, 200).JSON(t)
		}, func(m map[string]any) bool { return m["status"] == "FAILED" || m["status"] == "COMPLETED" })
	}

	refused := pay("5")
	if reason, _ := refused["failureReason"].(string); refused["status"] != "FAILED" || refused["executedTxHash"] != nil ||
		!strings.HasPrefix(reason, "INSUFFICIENT_FUNDS") || !strings.Contains(reason, "held by open card authorizations") {
		t.Fatalf("a payment of held USDC: %v", refused)
	}
	if onchain, err := env().Chain.USDCBalance(context.Background(), w.Address); err != nil || onchain.Int64() != 5_000_000 {
		t.Fatalf("the Safe after the refused payment: %v (%v)", onchain, err)
	}

	// The held money is there for the capture's settlement.
	captured := ten.Root.Post("/v1/sandbox/card-authorizations/"+auths[0]+"/capture", nil).Expect(t, 200).JSON(t)
	if captured["status"] != "CAPTURED" {
		t.Fatalf("capture: %v", captured)
	}
	harness.Eventually(t, "the settlement CONFIRMED", func() bool {
		for _, raw := range ten.Root.Get("/v1/cards/"+id+"/authorizations").Expect(t, 200).JSON(t)["authorizations"].([]any) {
			if m := raw.(map[string]any); m["authorizationId"] == auths[0] {
				return m["settlementStatus"] == "CONFIRMED"
			}
		}
		return false
	})
	assertZeroDrift(t, ten.Root, w.ID, "4000000")

	// Reversed holds free their USDC: a payment of it executes.
	for _, a := range auths[1:3] {
		ten.Root.Post("/v1/sandbox/card-authorizations/"+a+"/reverse", nil).Expect(t, 200)
	}
	if paid := pay("2"); paid["status"] != "COMPLETED" {
		t.Fatalf("a payment of freed USDC: %v", paid)
	}
	assertZeroDrift(t, ten.Root, w.ID, "2000000")
}
