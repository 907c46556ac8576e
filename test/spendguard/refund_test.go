package spendguard

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/test/harness"
)

// TestSpendGuard_RefundPassesServiceBalancePolicy: a refund takes money from the service
// balance, so the balance's spend policy applies to it: with a 3 USD cap and a blocked address,
// a payments:execute key's refund above the cap or to that address is 403 POLICY_DENIED and
// the balance is untouched; a refund within the policy goes out.
func TestSpendGuard_RefundPassesServiceBalancePolicy(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	blocked := harness.NewOwner(t).Address
	pol := ten.Root.Post("/v1/policies", map[string]any{"name": "balance", "document": map[string]any{"schemaVersion": 1,
		"limits":         map[string]any{"perTransactionUsd": "3"},
		"counterparties": map[string]any{"blocked": []string{blocked.Hex()}}}}).Expect(t, 201).JSON(t)
	ten.Root.Post("/v1/policies/"+pol["policyId"].(string)+"/attachments", map[string]any{"subjectType": "service_balance", "subjectId": ten.ID}).Expect(t, 201)

	id := completedCheckout(t, ten, 10)
	before := serviceBalance(t, ten.Root)

	refunder := env().Client(t).WithKey(env().NewKey(t, ten.Root, map[string]any{"name": "refunds", "scopes": []string{"payments:execute", "payments:read"}}))
	to := harness.NewOwner(t).Address
	for _, body := range []map[string]any{{"amount": 2, "address": blocked.Hex()}, {"amount": 4, "address": to.Hex()}} {
		r := refunder.Post("/v1/payments/"+id+"/refund", body)
		if r.Status != http.StatusForbidden {
			t.Fatalf("refund %v answered %d %s", body, r.Status, r.Body)
		}
	}
	if got := serviceBalance(t, ten.Root); got != before {
		t.Fatalf("service balance %s after refused refunds, was %s", got, before)
	}
	refunder.Post("/v1/payments/"+id+"/refund", map[string]any{"amount": 3, "address": to.Hex()}).Expect(t, 201)
}

// completedCheckout creates a checkout of amount USD, pays it on chain and waits until it is
// completed (its amount credited to the service balance); it returns the checkout's id.
func completedCheckout(t *testing.T, ten *harness.Tenant, amount int64) string {
	t.Helper()
	c := ten.Root.Post("/v1/payments", map[string]any{"amount": amount, "currency": "USD", "cryptocurrency": "USDC",
		"description": "Order 7"}).Expect(t, 201).JSON(t)
	id, depositAddress := c["id"].(string), c["deposit_address"].(string)
	if _, err := env().Chain.MintUSDC(context.Background(), common.HexToAddress(depositAddress), big.NewInt(amount*1_000_000)); err != nil {
		t.Fatal(err)
	}
	for range confirmations + 1 {
		if _, err := env().Chain.MineSimulated(); err != nil {
			t.Fatal(err)
		}
	}
	poll(t, "the checkout completed", func() map[string]any { return ten.Root.Get("/v1/payments/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "completed" })
	return id
}

// TestSpendGuard_RefundsCountInTheBalanceWindows: refunds pass the service balance's policy with
// cumulative windows, like every debit of the balance: under a 5 USD daily cap, a 3 USD refund
// goes out, a second 3 USD refund the same day (6 in the day) is 403 POLICY_DENIED naming the
// daily cap with the balance untouched, and a 2 USD refund (5 in the day) still goes out.
func TestSpendGuard_RefundsCountInTheBalanceWindows(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	pol := ten.Root.Post("/v1/policies", map[string]any{"name": "daily", "document": map[string]any{"schemaVersion": 1,
		"limits": map[string]any{"dailyUsd": "5"}}}).Expect(t, 201).JSON(t)
	ten.Root.Post("/v1/policies/"+pol["policyId"].(string)+"/attachments", map[string]any{"subjectType": "service_balance", "subjectId": ten.ID}).Expect(t, 201)
	id := completedCheckout(t, ten, 10)
	to := harness.NewOwner(t).Address.Hex()

	ten.Root.Post("/v1/payments/"+id+"/refund", map[string]any{"amount": 3, "address": to}).Expect(t, 201)
	before := serviceBalance(t, ten.Root)
	r := ten.Root.Post("/v1/payments/"+id+"/refund", map[string]any{"amount": 3, "address": to}).Expect(t, http.StatusForbidden)
	// The checkout routes answer in their own error form: the canonical code is in details.
	e, _ := r.JSON(t)["error"].(map[string]any)
	if d, _ := e["details"].(map[string]any); d["canonical_code"] != "POLICY_DENIED" || !strings.Contains(fmt.Sprint(d["reason"]), "DAILY_CAP") {
		t.Fatalf("refusal %v, want POLICY_DENIED on the daily cap", e)
	}
	if got := serviceBalance(t, ten.Root); got != before {
		t.Fatalf("service balance %s after the refused refund, was %s", got, before)
	}
	ten.Root.Post("/v1/payments/"+id+"/refund", map[string]any{"amount": 2, "address": to}).Expect(t, 201)
}
