package ramps

import (
	"strings"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestRamps_ContactsNeverBlockTheLiquidationAddress: the platform's liquidation address is no
// payee. Saving it as a contact is refused (400 naming address, in any spelling), so no
// cooling-off window can start on it, and with requireSavedPayees on an off-ramp to it is
// still recorded: contacts' rules never stand in the way of a platform flow.
func TestRamps_ContactsNeverBlockTheLiquidationAddress(t *testing.T) {
	ten := env().NewTenant(t)
	for _, spelling := range []string{wiring.DefaultLiquidationAddress, strings.ToLower(wiring.DefaultLiquidationAddress)} {
		m := ten.Root.Post("/v1/contacts", map[string]any{"address": spelling, "label": "liquidation"}).ExpectError(t, 400, "VALIDATION_FAILED")
		if harness.Field(m, "address") == "" {
			t.Fatalf("the refusal does not name address: %v", m)
		}
	}
	if got := ten.Root.Get("/v1/contacts").Expect(t, 200).JSON(t); got["total"] != float64(0) {
		t.Fatalf("contacts after the refusals: %v", got)
	}

	walletID := newWallet(t, ten.Root, harness.NewOwner(t))
	on := ten.Root.Post("/v1/ramps", onRamp(walletID, "30")).Expect(t, 201).JSON(t)
	if got := waitRamp(t, ten.Root, on["rampId"].(string)); got["status"] != "CONFIRMED" {
		t.Fatalf("on-ramp: %v", got)
	}
	ten.Root.Do("PUT", "/v1/twofactor/settings", map[string]any{"requireSavedPayees": true}).Expect(t, 200)
	off := ten.Root.Post("/v1/ramps", map[string]any{"walletId": walletID, "direction": "off", "amount": "10"}).Expect(t, 201).JSON(t)
	if off["paymentStatus"] != "AWAITING_SIGNATURE" {
		t.Fatalf("off-ramp with saved payees only: %v", off)
	}
}
