package checkout

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestCheckout_SandboxPayCompletesWithoutAWallet: the TEST helper pays what is due with the
// sandbox USDC sent from a real address (the relayer); the watcher completes the checkout like
// any payment with that address as payer_address, a refund without an address goes back to it,
// bad amounts change nothing, LIVE is refused and another tenant's checkout answers 404.
func TestCheckout_SandboxPayCompletesWithoutAWallet(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	c := create(t, ten.Root, 12.5)
	id, deposit := c["id"].(string), c["deposit_address"].(string)

	for _, body := range []map[string]any{{"amount": 0}, {"amount": -1}, {"amount": 1.0000001}, {"amount": 1000001}, {"amount": "5"}} {
		ten.Root.Post("/v1/sandbox/payments/"+id+"/pay", body).Expect(t, 400)
	}
	if b := usdcBalance(t, deposit); b != 0 {
		t.Fatalf("refused payments moved %d", b)
	}
	other := env().NewTenant(t)
	other.Root.Post("/v1/sandbox/payments/"+id+"/pay", nil).Expect(t, 404)

	paid := ten.Root.Post("/v1/sandbox/payments/"+id+"/pay", nil).Expect(t, 201).JSON(t)
	if paid["amount"] != "12.500000" || paid["payment_id"] != id || paid["transaction_hash"] == "" {
		t.Fatalf("sandbox payment: %v", paid)
	}
	mine(t, confirmations)
	done := waitStatus(t, ten.Root, id, "completed")
	payer := env().Chain.RelayerAddress().Hex()
	if done["amount_received"] != "12.500000" || done["payer_address"] != payer {
		t.Fatalf("completed: %v (want payer_address %s)", done, payer)
	}
	// Nothing is due any more: an explicit amount overpays, none is refused.
	ten.Root.Post("/v1/sandbox/payments/"+id+"/pay", nil).Expect(t, 400)

	harness.Poll(t, "payment credited", func() map[string]any { return get(t, ten.Root, id) },
		func(m map[string]any) bool { return m["refundable"] == "12.500000" })
	back := ten.Root.Post("/v1/payments/"+id+"/refund", map[string]any{"amount": 1}).Expect(t, 201).JSON(t)
	ten.Root.Post("/v1/payments/"+id+"/refund", map[string]any{"amount": 1, "address": newAddress(t)}).Expect(t, 201)
	if back["destination"] != payer {
		t.Fatalf("a refund without an address: %v, want it sent to the payer %s", back, payer)
	}

	live := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "live", "environment": "live", "scopes": []string{"*"}}))
	live.Post("/v1/sandbox/payments/"+id+"/pay", nil).Expect(t, 403)
}
