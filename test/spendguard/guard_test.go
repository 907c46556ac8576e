package spendguard

import (
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/test/harness"
)

// expectAgentWalletOnly checks a refusal is INSUFFICIENT_SCOPE with reason AGENT_WALLET_ONLY.
func expectAgentWalletOnly(t *testing.T, r *harness.Response) {
	t.Helper()
	e := r.ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
	if d, _ := e["details"].(map[string]any); d["reason"] != "AGENT_WALLET_ONLY" {
		t.Fatalf("details %v", e["details"])
	}
}

// TestSpendGuard_AgentKeyCannotPayPhoneFromServiceBalance: an agent key minted ["*"] asking
// for an off-ramp payment funded from the tenant's service balance is refused, and the balance
// is untouched; the tenant's own key still pays the same phone.
func TestSpendGuard_AgentKeyCannotPayPhoneFromServiceBalance(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	deposit(t, ten.Root, "100")
	key := agentClient(t, ten.Root, createAgent(t, ten.Root, "payer"), "*")
	phone := harness.Phone("415")
	for _, body := range []map[string]any{
		{"phone": phone, "amountUsd": "40"},
		{"phone": phone, "amountUsd": "40", "fundingMode": "INTERNAL_BALANCE"},
	} {
		expectAgentWalletOnly(t, key.Post("/v1/offramp/payments", body))
	}
	if got := serviceBalance(t, ten.Root); got != "100000000" {
		t.Fatalf("service balance %s after the agent's refused payments, want 100000000", got)
	}
	ten.Root.Post("/v1/offramp/payments", map[string]any{"phone": phone, "amountUsd": "40"}).Expect(t, http.StatusCreated)
	if got := serviceBalance(t, ten.Root); got != "60000000" {
		t.Fatalf("service balance %s after the tenant's payment, want 60000000", got)
	}
}

// TestSpendGuard_AgentKeyCannotIssueBalanceCard: a card without a Safe draws on the service
// balance, so an agent key may not issue one (nothing is created); a tenant key may.
func TestSpendGuard_AgentKeyCannotIssueBalanceCard(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	deposit(t, ten.Root, "100")
	key := agentClient(t, ten.Root, createAgent(t, ten.Root, "card issuer"), "*")
	holder := key.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).Expect(t, http.StatusCreated).JSON(t)
	expectAgentWalletOnly(t, key.Post("/v1/cards", map[string]any{"cardholderId": holder["cardholderId"]}))
	if n := ten.Root.Get("/v1/cards").Expect(t, 200).JSON(t)["total"]; n != float64(0) {
		t.Fatalf("cards after the refusal: %v", n)
	}
	ten.Root.Post("/v1/cards", map[string]any{"cardholderId": holder["cardholderId"]}).Expect(t, http.StatusCreated)
}

// TestSpendGuard_AgentKeyCannotAuthorizeOnTenantCard: a funding-account card the tenant issued
// spends the service balance; an agent key driving an authorization on it is refused by the
// ledger's debit path (the guard no route can forget), and the balance is untouched.
func TestSpendGuard_AgentKeyCannotAuthorizeOnTenantCard(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	deposit(t, ten.Root, "100")
	holder := ten.Root.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).Expect(t, http.StatusCreated).JSON(t)
	card := ten.Root.Post("/v1/cards", map[string]any{"cardholderId": holder["cardholderId"]}).Expect(t, http.StatusCreated).JSON(t)
	key := agentClient(t, ten.Root, createAgent(t, ten.Root, "shopper"), "*")
	r := key.Post("/v1/sandbox/cards/"+card["cardId"].(string)+"/authorizations", map[string]any{"amountUsd": "15", "mcc": "5411", "merchantName": "Shop"})
	if r.Status == http.StatusCreated || r.Status == http.StatusOK {
		if a := r.JSON(t); a["status"] == "APPROVED" {
			t.Fatalf("an agent key authorized on the tenant's funding card: %v", a)
		}
	}
	if got := serviceBalance(t, ten.Root); got != "100000000" {
		t.Fatalf("service balance %s, want 100000000", got)
	}
}

// TestSpendGuard_CustodyRefusesUnstatedCalls: on a custodial wallet, approve, transferFrom,
// increaseAllowance, an unknown selector, another token and native value are refused with
// CUSTODY_CALL_REFUSED naming why, and nothing is recorded; a USDC transfer calldata is decoded
// and executed, moving exactly its amount to its recipient.
func TestSpendGuard_CustodyRefusesUnstatedCalls(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := custodialWallet(t, ten, "20")
	usdc := usdcAddress(t)
	attacker := harness.NewOwner(t).Address
	max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	for _, c := range []struct{ reason, to, data, value string }{
		{"ERC20_APPROVE", usdc.Hex(), calldata("095ea7b3", addressWord(attacker), amountWord(max)), ""},
		{"ERC20_TRANSFER_FROM", usdc.Hex(), calldata("23b872dd", addressWord(attacker), addressWord(attacker), amountWord(big.NewInt(1))), ""},
		{"ERC20_INCREASE_ALLOWANCE", usdc.Hex(), calldata("39509351", addressWord(attacker), amountWord(max)), ""},
		{"UNKNOWN_SELECTOR", usdc.Hex(), calldata("deadbeef"), ""},
		{"UNKNOWN_SELECTOR", attacker.Hex(), "", ""},
		{"TOKEN_NOT_USDC", attacker.Hex(), calldata("a9059cbb", addressWord(attacker), amountWord(big.NewInt(1))), ""},
		{"NATIVE_VALUE", attacker.Hex(), "", "1"},
	} {
		body := map[string]any{"to": c.to}
		if c.data != "" {
			body["data"] = c.data
		}
		if c.value != "" {
			body["value"] = c.value
		}
		e := ten.Root.Post("/v1/wallets/"+w+"/transactions", body).ExpectError(t, http.StatusUnprocessableEntity, "CUSTODY_CALL_REFUSED")
		if d, _ := e["details"].(map[string]any); d["reason"] != c.reason {
			t.Fatalf("%s: details %v", c.reason, e["details"])
		}
	}
	// A refused call recorded would be a sent row (withdrawal); the faucet's funding is a received
	// row the ledger mirror lists whenever it has indexed the mint, before or after this read.
	if n := ten.Root.Get("/v1/wallets/"+w+"/transactions?type=withdrawal").Expect(t, 200).JSON(t); fmt.Sprint(n["total"]) != "0" {
		t.Fatalf("transactions recorded after refusals: %v", n)
	}
	to := harness.NewOwner(t).Address
	p := ten.Root.Post("/v1/wallets/"+w+"/transactions", map[string]any{"to": usdc.Hex(),
		"data": calldata("a9059cbb", addressWord(to), amountWord(big.NewInt(3_000_000)))}).Expect(t, http.StatusCreated).JSON(t)
	done := poll(t, "the custodial transfer", func() map[string]any { return ten.Root.Get("/v1/payments/"+p["id"].(string)).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "COMPLETED" || m["status"] == "FAILED" })
	if done["status"] != "COMPLETED" || usdcBalance(t, to) != 3_000_000 {
		t.Fatalf("transfer %v; recipient holds %d", done, usdcBalance(t, to))
	}
}

// TestSpendGuard_TransferCalldataGatedAsPayment: a wallet policy capping a payment at 5 USD
// and blocking an address stops transfer calldata above the cap or to that address exactly as
// it stops a payment (POLICY_DENIED), because the gates see the decoded amount and recipient.
func TestSpendGuard_TransferCalldataGatedAsPayment(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := custodialWallet(t, ten, "20")
	blocked := harness.NewOwner(t).Address
	pol := ten.Root.Post("/v1/policies", map[string]any{"name": "cap", "document": map[string]any{"schemaVersion": 1,
		"limits":         map[string]any{"perTransactionUsd": "5"},
		"counterparties": map[string]any{"blocked": []string{blocked.Hex()}}}}).Expect(t, 201).JSON(t)
	ten.Root.Post("/v1/policies/"+pol["policyId"].(string)+"/attachments", map[string]any{"subjectType": "wallet", "subjectId": w}).Expect(t, 201)
	usdc, to := usdcAddress(t), harness.NewOwner(t).Address
	transfer := func(rcpt common.Address, units int64) map[string]any {
		return map[string]any{"to": usdc.Hex(), "data": calldata("a9059cbb", addressWord(rcpt), amountWord(big.NewInt(units)))}
	}
	ten.Root.Post("/v1/wallets/"+w+"/transactions", transfer(to, 6_000_000)).ExpectError(t, http.StatusForbidden, "POLICY_DENIED")
	ten.Root.Post("/v1/wallets/"+w+"/transactions", transfer(blocked, 1_000_000)).ExpectError(t, http.StatusForbidden, "POLICY_DENIED")
	ten.Root.Post("/v1/wallets/"+w+"/transactions", transfer(to, 5_000_000)).Expect(t, http.StatusCreated)
	if usdcBalance(t, blocked) != 0 {
		t.Fatal("the blocked address received USDC")
	}
}

// TestSpendGuard_AgentCapsReservedInParallel: caps of 5 USD a payment and 10 USD a day; 20
// parallel proposals of 5 USD admit at most 10 USD; cancelling an accepted one releases its
// reservation, so one more fits.
func TestSpendGuard_AgentCapsReservedInParallel(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	id := createAgent(t, ten.Root, "capped")
	walletID := agentWallet(t, ten, id, o, "200")
	ten.Root.Do(http.MethodPut, "/v1/agents/"+id+"/limits", map[string]any{"perTransactionUsd": "5", "dailyUsd": "10"}).Expect(t, 200)
	key := agentClient(t, ten.Root, id, "payments:create", "payments:read", "payments:execute")

	var wg sync.WaitGroup
	answers := make([]*harness.Response, 20)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = key.Post("/v1/payments", payBody(walletID, "5"))
		}()
	}
	wg.Wait()
	var accepted []string
	for _, r := range answers {
		switch {
		case r.Status == http.StatusCreated:
			accepted = append(accepted, r.JSON(t)["id"].(string))
		case r.Status == http.StatusForbidden && r.JSON(t)["code"] == "AGENT_LIMIT":
		default:
			t.Fatalf("parallel proposal answered %d %s", r.Status, r.Body)
		}
	}
	if len(accepted) != 2 {
		t.Fatalf("%d proposals of 5 USD accepted against a 10 USD day", len(accepted))
	}
	key.Post("/v1/payments", payBody(walletID, "5")).ExpectError(t, http.StatusForbidden, "AGENT_LIMIT")
	// The newest proposal (the higher Safe nonce) is the one that can be cancelled.
	if r := ten.Root.Post("/v1/payments/"+accepted[1]+"/cancel", nil); r.Status != http.StatusOK {
		ten.Root.Post("/v1/payments/"+accepted[0]+"/cancel", nil).Expect(t, 200)
	}
	key.Post("/v1/payments", payBody(walletID, "5")).Expect(t, http.StatusCreated)
	key.Post("/v1/payments", payBody(walletID, "0.000001")).ExpectError(t, http.StatusForbidden, "AGENT_LIMIT")
}
