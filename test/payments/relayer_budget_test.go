package payments

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestPayments_RelayerBudget spends a tenant's daily relayer budget (a deployment and an
// execution) and shows the next relayer-paid request is refused with 429 scope "relayer",
// changing nothing, while another tenant is not affected.
func TestPayments_RelayerBudget(t *testing.T) {
	t.Parallel()
	srv := harness.NewServer(t, func(c *wiring.Config) { c.RelayerTxBudget = 2 })
	ten := srv.NewTenant(t)
	owners := newOwners(t, 1)
	w := walletThroughAPI(t, ten, owners, 1) // the deployment: 1 of 2

	first := propose(t, ten.Root, toAddress(w, randomAddress(t), "1"))
	sign(t, ten.Root, first, owners[0]).Expect(t, 200) // the execution: 2 of 2
	// The wallet holds nothing, so the execution ends FAILED on chain; wait for it, or its
	// outcome could land after the second proposal and fail that one for a nonce gap.
	poll(t, func() map[string]any {
		return ten.Root.Get("/v1/payments/"+first["id"].(string)).Expect(t, 200).JSON(t)
	},
		func(m map[string]any) bool {
			s := m["status"]
			return s == "COMPLETED" || s == "FAILED" || s == "CANCELLED"
		})

	second := propose(t, ten.Root, toAddress(w, randomAddress(t), "1")) // proposing costs nothing
	refused := sign(t, ten.Root, second, owners[0]).ExpectError(t, 429, "RATE_LIMITED")
	if details, _ := refused["details"].(map[string]any); details["scope"] != "relayer" || details["limit"] != float64(2) {
		t.Fatalf("details %v, want scope relayer and limit 2", refused["details"])
	}
	if got := ten.Root.Get("/v1/payments/"+second["id"].(string)).Expect(t, 200).JSON(t); got["status"] != "AWAITING_SIGNATURE" {
		t.Fatalf("the refused signature changed the payment: %v", got["status"])
	}
	list := []map[string]any{{"address": owners[0].address.Hex(), "role": "FINANCE_OWNER"}}
	ten.Root.Post("/v1/wallets", map[string]any{"name": "over budget", "owners": list, "threshold": 1}).ExpectError(t, 429, "RATE_LIMITED")
	if total := ten.Root.Get("/v1/wallets").Expect(t, 200).JSON(t)["total"]; total != float64(1) {
		t.Fatalf("%v wallets exist, want 1", total)
	}

	other := srv.NewTenant(t)
	other.Root.Post("/v1/wallets", map[string]any{"name": "other tenant", "owners": list, "threshold": 1}).Expect(t, 201)
}

// TestPayments_SignRetryReplays: the retry of the threshold signature replays its outcome,
// although the payment, now executing, refuses a new signature before the idempotent unit.
func TestPayments_SignRetryReplays(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	owners := newOwners(t, 1)
	w := newWallet(t, ten, owners, 1, "")
	pay := propose(t, ten.Root, toAddress(w, randomAddress(t), "1"))
	c := ten.Root.With("Idempotency-Key", "sign-once")
	first := sign(t, c, pay, owners[0]).Expect(t, 200)
	retry := sign(t, c, pay, owners[0]).Expect(t, 200)
	if retry.Header.Get("Idempotent-Replayed") != "true" || string(retry.Body) != string(first.Body) {
		t.Fatalf("the retry was not a replay: %s", retry.Body)
	}
	sign(t, ten.Root, pay, owners[0]).ExpectError(t, 409, "INVALID_STATE")
}
