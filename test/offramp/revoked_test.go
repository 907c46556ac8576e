package offramp

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// expectDestination checks one of the recipient's destinations as GET /v1/payout-destinations
// lists it.
func expectDestination(t *testing.T, c *harness.Client, id, status string, routable bool) {
	t.Helper()
	for _, d := range c.Get("/v1/payout-destinations").Expect(t, 200).JSON(t)["payoutDestinations"].([]any) {
		m := d.(map[string]any)
		if m["id"] == id {
			if m["status"] != status || m["routable"] != routable {
				t.Fatalf("destination %s: %v, want %s routable=%v", id, m, status, routable)
			}
			return
		}
	}
	t.Fatalf("destination %s not listed", id)
}

// TestOfframp_DestinationRevokedRequotes: the provider refuses the payout because the
// recipient's destination is revoked at the provider (the mock's "09"). The destination becomes
// REVOKED, no longer routable; the payment goes back to POLICY_CHECK and gets a fresh quote set
// over the recipient's remaining destination, the money still reserved on the sender's balance
// (nothing reached the provider); confirmed again, it is delivered.
func TestOfframp_DestinationRevokedRequotes(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	wa := destination(t, p.recipient.Root, walletA)
	sb := destination(t, p.recipient.Root, serviceBalance)
	id := p.create(t, "10.000009", nil).Expect(t, 201).JSON(t)["paymentId"].(string)
	harness.ConfirmRoute(t, p.recipient.Root, id, "wallet_a")

	m := waitStatus(t, p.sender.Root, id, "AWAITING_RECIPIENT_CONFIRMATION")
	if h, _ := m["holdReasons"].([]any); len(h) != 0 || m["deliveredAt"] != nil {
		t.Fatalf("requoted payment %v", m)
	}
	expectDestination(t, p.recipient.Root, wa, "REVOKED", false)
	expectDestination(t, p.recipient.Root, sb, "ACTIVE", true)
	routes := p.recipient.Root.Get("/v1/offramp/payments/"+id+"/routes").Expect(t, 200).JSON(t)["routes"].([]any)
	if len(routes) != 1 || routes[0].(map[string]any)["provider"] != "internal" {
		t.Fatalf("fresh quote set over the remaining destination: %v", routes)
	}
	// The money stays reserved on the sender's balance: nothing went to the provider.
	harness.ExpectServiceBalance(t, p.sender.Root, 20*usd-10_000_009, 10_000_009)
	if l := harness.PaymentLedger(t, env().DatabaseURL, id); l["world:APP_WALLET_A"] != 0 {
		t.Fatalf("ledger of a refused payout %v", l)
	}

	harness.ConfirmRoute(t, p.recipient.Root, id, "internal")
	waitStatus(t, p.sender.Root, id, "DELIVERED")
	harness.ExpectServiceBalance(t, p.sender.Root, 20*usd-10_000_009, 0)
	trialBalanceZero(t, p.sender, p.recipient)
}

// TestOfframp_DestinationRevokedHolds: with no other destination, the payment whose destination
// the provider revoked is held with PROVIDER_DESTINATION_REVOKED, funds reserved; new payments
// to the recipient are held alike. Adding a different destination clears the hold: fresh
// quotes, and the payment is delivered.
func TestOfframp_DestinationRevokedHolds(t *testing.T) {
	t.Parallel()
	p := newPair(t, "30")
	wa := destination(t, p.recipient.Root, walletA)
	id := p.create(t, "10.000009", nil).Expect(t, 201).JSON(t)["paymentId"].(string)
	harness.ConfirmRoute(t, p.recipient.Root, id, "wallet_a")

	m := waitStatus(t, p.sender.Root, id, "COMPLIANCE_HOLD")
	if h, _ := m["holdReasons"].([]any); len(h) != 1 || h[0] != "PROVIDER_DESTINATION_REVOKED" {
		t.Fatalf("held payment %v", m)
	}
	if r := get(t, p.recipient.Root, id); r["status"] != "COMPLIANCE_HOLD" {
		t.Fatalf("recipient's view %v", r)
	}
	expectDestination(t, p.recipient.Root, wa, "REVOKED", false)
	harness.ExpectServiceBalance(t, p.sender.Root, 30*usd-10_000_009, 10_000_009)
	other := p.create(t, "1", nil).Expect(t, 201).JSON(t)
	if h, _ := other["holdReasons"].([]any); other["status"] != "COMPLIANCE_HOLD" || len(h) != 1 || h[0] != "PROVIDER_DESTINATION_REVOKED" {
		t.Fatalf("a new payment to the recipient %v", other)
	}

	// The recipient adds a different destination: the hold clears, fresh quotes over it.
	destination(t, p.recipient.Root, serviceBalance)
	m = waitStatus(t, p.sender.Root, id, "AWAITING_RECIPIENT_CONFIRMATION")
	if h, _ := m["holdReasons"].([]any); len(h) != 0 {
		t.Fatalf("hold kept %v", m)
	}
	harness.ConfirmRoute(t, p.recipient.Root, id, "internal")
	waitStatus(t, p.sender.Root, id, "DELIVERED")
	trialBalanceZero(t, p.sender, p.recipient)
}

// TestOfframp_DestinationRevokedUnpins: a payment pinned to the destination the provider revoked
// (requestedDestinationId) is unpinned and requoted over the recipient's other destination.
func TestOfframp_DestinationRevokedUnpins(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	wa := destination(t, p.recipient.Root, walletA)
	destination(t, p.recipient.Root, serviceBalance)
	created := p.create(t, "10.000009", map[string]any{"requestedDestinationId": wa}).Expect(t, 201).JSON(t)
	id := created["paymentId"].(string)
	if created["requestedDestinationId"] != wa {
		t.Fatalf("pinned payment %v", created)
	}
	harness.ConfirmRoute(t, p.recipient.Root, id, "wallet_a")

	m := waitStatus(t, p.sender.Root, id, "AWAITING_RECIPIENT_CONFIRMATION")
	if m["requestedDestinationId"] != nil {
		t.Fatalf("still pinned to the revoked destination %v", m)
	}
	harness.ConfirmRoute(t, p.recipient.Root, id, "internal")
	waitStatus(t, p.sender.Root, id, "DELIVERED")
	trialBalanceZero(t, p.sender, p.recipient)
}
