package webhooks

import (
	"crypto/rand"
	"encoding/hex"
	"testing"

	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/test/harness"
)

func newAddress(t *testing.T) string {
	t.Helper()
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "0x" + hex.EncodeToString(b)
}

// eventFor waits until the tenant has an event of the family whose data.id is resourceID.
func eventFor(t *testing.T, c *harness.Client, family, resourceID string) map[string]any {
	t.Helper()
	var found map[string]any
	poll(t, func() map[string]any { return c.Get("/v1/events?type="+family+".*").Expect(t, 200).JSON(t) },
		func(m map[string]any) bool {
			for _, e := range m["events"].([]any) {
				e := e.(map[string]any)
				if e["data"].(map[string]any)["id"] == resourceID {
					found = e
					return true
				}
			}
			return false
		})
	return found
}

// TestEvents_WrittenByCapabilities: a Safe payment proposed, a card authorization decided, an
// invoice created and an off-ramp payment made each record their event, with the resource's id and status, and the
// endpoint subscribed to every type receives them.
func TestEvents_WrittenByCapabilities(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	rcv := harness.NewWebhookReceiver(t, 0)
	endpoint(t, ten.Root, rcv.URL())

	walletID := ten.Root.Post("/v1/wallets", map[string]any{"name": "events",
		"owners": []map[string]any{{"address": newAddress(t), "role": "FINANCE_OWNER"}}}).Expect(t, 201).JSON(t)["id"].(string)
	harness.Poll(t, "the wallet deploys", func() map[string]any { return ten.Root.Get("/v1/wallets/"+walletID).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "DEPLOYED" })

	pay := ten.Root.Post("/v1/payments", map[string]any{"sourceWalletId": walletID,
		"destination": map[string]any{"type": "address", "address": newAddress(t), "chainId": wallet.SandboxChainID},
		"amount":      map[string]any{"value": "1", "asset": "usdc"}}).Expect(t, 201).JSON(t)
	ev := eventFor(t, ten.Root, "safe_payment", pay["id"].(string))
	if ev["data"].(map[string]any)["amount"] != "1" {
		t.Fatalf("payment event: %v", ev)
	}

	cardID := ten.Root.Post("/v1/wallets/"+walletID+"/cards", map[string]any{}).Expect(t, 201).JSON(t)["cardId"].(string)
	auth := ten.Root.Post("/v1/sandbox/cards/"+cardID+"/authorizations",
		map[string]any{"amountUsd": "1", "mcc": "5411", "merchantName": "events"}).Expect(t, 201).JSON(t)
	ev = eventFor(t, ten.Root, "card_authorization", auth["authorizationId"].(string))
	if ev["data"].(map[string]any)["cardId"] != cardID {
		t.Fatalf("authorization event: %v", ev)
	}

	inv := ten.Root.Post("/v1/invoices", map[string]any{"amountUsd": "5", "payerAddress": newAddress(t),
		"payeeAddress": newAddress(t)}).Expect(t, 201).JSON(t)
	eventFor(t, ten.Root, "invoice", inv["invoiceId"].(string))

	// An off-ramp payment to a number nobody verified: the payment's and its claim's events go
	// to the sender.
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "10"}).Expect(t, 201)
	ofp := ten.Root.Post("/v1/offramp/payments", map[string]any{"phone": "+16285550199", "amountUsd": "3"}).Expect(t, 201).JSON(t)
	eventFor(t, ten.Root, "offramp_payment", ofp["paymentId"].(string))

	// Every event reached the endpoint, each once per delivery.
	total := int(ten.Root.Get("/v1/events").Expect(t, 200).JSON(t)["total"].(float64))
	got := rcv.Wait(t, total)
	seen := map[any]bool{}
	for _, d := range got {
		seen[d.Event["id"]] = true
	}
	if len(seen) < total {
		t.Fatalf("the endpoint received %d distinct events of %d", len(seen), total)
	}
}
