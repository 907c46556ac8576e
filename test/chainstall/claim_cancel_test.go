package chainstall

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestClaimCancel_UnfundedEndsCanceled: a pending claim whose escrow funding has not been
// indexed (here the node is silent, so the funding cannot even be sent) is only reserved (docs/decisions/ledger.md):
// the sender's cancel voids the reservation and ends the payment CANCELED at once; once the
// node answers again the escrow is never funded and its id is cancelled on chain.
func TestClaimCancel_UnfundedEndsCanceled(t *testing.T) {
	env := harness.Shared()
	sender := env.NewTenant(t)
	sender.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "10"}).Expect(t, 201)

	env.StallChain(true)
	t.Cleanup(func() { env.StallChain(false) })
	pay := sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": "+16282345671", "amountUsd": "4"}).Expect(t, 201).JSON(t)
	if pay["status"] != "PENDING_CLAIM" {
		t.Fatalf("create %v", pay)
	}
	harness.ExpectServiceBalance(t, sender.Root, 6_000_000, 4_000_000)
	id, claimID := pay["paymentId"].(string), pay["claimId"].(string)
	c := sender.Root.Post("/v1/offramp/payments/"+id+"/cancel", nil).Expect(t, 200).JSON(t)
	if c["status"] != "CANCELED" || c["failureReason"] != "CANCELED_BY_SENDER" {
		t.Fatalf("cancel %v", c)
	}
	harness.ExpectServiceBalance(t, sender.Root, 10_000_000, 0)
	// A retried cancel changes nothing.
	sender.Root.Post("/v1/offramp/payments/"+id+"/cancel", nil).ExpectError(t, 409, "INVALID_STATE")

	env.StallChain(false)
	cl := harness.WaitClaim(t, sender.Root, claimID, "canceled on chain", func(c map[string]any) bool { return c["status"] == "CANCELED" })
	if cl["funded"] != false {
		t.Fatalf("claim %v", cl)
	}
	if g := sender.Root.Get("/v1/offramp/payments/"+id).Expect(t, 200).JSON(t); g["status"] != "CANCELED" {
		t.Fatalf("payment after the indexed cancel: %v", g)
	}
	harness.ExpectServiceBalance(t, sender.Root, 10_000_000, 0)
	if l := harness.PaymentLedger(t, env.DatabaseURL, id); len(l) != 0 {
		t.Fatalf("a canceled claim left ledger movements: %v", l)
	}
}
