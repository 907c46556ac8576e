package cards

import (
	"testing"

	"github.com/corridorhq/corridor/core/card"
)

// Legacy cards without a tenant are never gated by a spend policy (docs/api.md Policies).
func TestGated_TenantlessCardsAreNeverGated(t *testing.T) {
	if Gated(card.Card{ID: "card_legacy"}) {
		t.Fatal("a tenant-less card must not be gated")
	}
	if !Gated(card.Card{ID: "card_1", TenantID: "ten_1"}) {
		t.Fatal("a tenant's card is gated")
	}
}

func TestParseAuthorize(t *testing.T) {
	cp := "0x00000000000000000000000000000000000000AA"
	req, merchant, counterparty, err := parseAuthorize(AuthorizeInput{AmountUsd: "1.5", MCC: "5411", MerchantName: " Shop ", Counterparty: &cp})
	if err != nil || req.Amount != 1_500_000 || merchant != "Shop" || counterparty != "0x00000000000000000000000000000000000000aa" {
		t.Fatalf("%+v %q %q %v", req, merchant, counterparty, err)
	}
}
