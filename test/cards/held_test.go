package cards

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/app/safepayments"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/ports"
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

// TestCards_ExplicitExecuteOfHeldUSDCIsRefused: an explicit execute of a payment that would
// spend held USDC answers INSUFFICIENT_FUNDS (details: available, held, requested) and leaves
// the payment READY_TO_EXECUTE. The payment is signed through a service whose jobs are recorded,
// not run, so no execution job races the explicit execute.
func TestCards_ExplicitExecuteOfHeldUSDCIsRefused(t *testing.T) {
	t.Parallel()
	ten, w := fourOfFiveHeld(t)
	_, id := signedWithRecordedJobs(t, ten, w, "2")

	e := ten.Root.Post("/v1/payments/"+id+"/execute", nil).ExpectError(t, http.StatusUnprocessableEntity, "INSUFFICIENT_FUNDS")
	if d, _ := e["details"].(map[string]any); d["available"] != "1" || d["held"] != "4" || d["requested"] != "2" {
		t.Fatalf("refusal: %v", e)
	}
	if got := ten.Root.Get("/v1/payments/"+id).Expect(t, 200).JSON(t); got["status"] != "READY_TO_EXECUTE" || got["executedTxHash"] != nil {
		t.Fatalf("after the refused execute: %v", got)
	}
}

// TestCards_SecondarySendCountsHeldUSDC: a wallet's USDC line shows what open authorizations
// hold and what is available, and the secondary send's pre-check subtracts the holds. With 4 of
// a wallet's 5 USDC held, a send of 2 answers 422
// insufficient_funds (available 1, held 4, requested 2) and proposes nothing; a send of 1 is
// proposed.
func TestCards_SecondarySendCountsHeldUSDC(t *testing.T) {
	t.Parallel()
	ten, w := fourOfFiveHeld(t)
	// The wallet shows the hold beside its live USDC.
	for _, raw := range ten.Root.Get("/v1/wallets/"+w.ID).Expect(t, 200).JSON(t)["balances"].([]any) {
		if line := raw.(map[string]any); line["asset"] == "usdc" && (line["amount"] != "5" || line["held"] != "4" || line["available"] != "1") {
			t.Fatalf("the wallet's USDC line: %v", line)
		} else if line["asset"] == "eth" && (line["held"] != nil || line["available"] != nil) {
			t.Fatalf("the wallet's ETH line: %v", line)
		}
	}
	// So does its page in the console.
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	if page := v.Get("/console/wallets/" + w.ID); page.Status != 200 ||
		!strings.Contains(page.Body, `<p id="wallet-held">Card authorizations hold 4.000000 USDC of this; 1.000000 USDC is available to Safe payments.</p>`) {
		t.Fatalf("the console's wallet page: %d\n%s", page.Status, page.Body)
	}
	dest := common.HexToAddress("0x00000000000000000000000000000000000000a1").Hex()
	send := func(amount string) *harness.Response {
		return ten.Root.Post("/v1/wallets/"+w.ID+"/send", map[string]any{"currency": "USDC", "amount": amount, "destination": dest})
	}
	refused := send("2").Expect(t, 422).JSON(t)["error"].(map[string]any)
	d, _ := refused["details"].(map[string]any)
	if refused["code"] != "insufficient_funds" || d["available"] != "1" || d["held"] != "4" || d["requested"] != "2" ||
		!strings.Contains(refused["message"].(string), "card authorizations hold") {
		t.Fatalf("a send of held USDC: %v", refused)
	}
	if list := ten.Root.Get("/v1/payments").Expect(t, 200).JSON(t); list["total"] != float64(0) {
		t.Fatalf("a refused send proposed a payment: %v", list)
	}
	if sent := send("1").Expect(t, 201).JSON(t); sent["transaction_id"] == nil {
		t.Fatalf("a send of free USDC: %v", sent)
	}
}

// fourOfFiveHeld is a tenant's wallet holding 5 USDC, 4 of them held by an approved
// authorization on a card of the wallet.
func fourOfFiveHeld(t *testing.T) (*harness.Tenant, testWallet) {
	t.Helper()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 5)
	cardID := issue(t, ten.Root, w, map[string]any{})["cardId"].(string)
	if a := authorize(t, ten.Root, cardID, "4", "5411"); a["status"] != "APPROVED" {
		t.Fatalf("authorize: %v", a)
	}
	return ten, w
}

// signedWithRecordedJobs proposes a payment of amount from w to a fresh address and signs it,
// READY_TO_EXECUTE, through a Safe payments service whose jobs are recorded, not run: no
// execution job moves it on, and the returned service runs its steps when the test says.
func signedWithRecordedJobs(t *testing.T, ten *harness.Tenant, w testWallet, amount string) (*safepayments.Service, string) {
	t.Helper()
	payee, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	proposed := ten.Root.Post("/v1/payments", map[string]any{"sourceWalletId": w.ID,
		"destination": map[string]any{"type": "address", "address": crypto.PubkeyToAddress(payee.PublicKey).Hex(), "chainId": 84532},
		"amount":      map[string]any{"value": amount}}).Expect(t, 201).JSON(t)
	id := proposed["id"].(string)
	svc, err := safepayments.New(safepayments.Deps{Store: env().Service.Store, Jobs: &recordedJobs{},
		Chains:     map[core.Environment]ports.Chain{core.EnvTest: env().Chain},
		PolicyGate: env().Service.Policy, AgentGate: env().Service.Agents, ApprovalGate: env().Service.TwoFactor})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := auth.Principal{Kind: auth.KindAPIKey, TenantID: ten.ID, Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeRoot}}
	sig, err := safe.Sign(common.HexToHash(proposed["safeTxHash"].(string)), w.Owner)
	if err != nil {
		t.Fatal(err)
	}
	read, err := svc.ReadSignature(ctx, p, id, sig.Hex())
	if err != nil {
		t.Fatal(err)
	}
	if signed, err := svc.Sign(ctx, p, read); err != nil || signed.Status != "READY_TO_EXECUTE" {
		t.Fatalf("sign: %+v %v", signed, err)
	}
	return svc, id
}
