package cards

import (
	"context"
	"testing"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
)

// TestCards_GoClient/issued, authorized and frozen through the generated client: the cards
// flow spoken through sdk/go/corridor: a card issued from a funded wallet with a daily cap, an
// authorization under the cap approved and one for a blocked MCC declined, both listed on the
// card, and the card frozen.
func TestCards_GoClient(t *testing.T) {
	t.Parallel()
	t.Run("issued, authorized and frozen through the generated client", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		ten := env().NewTenant(t)
		api := env().SDK(t, ten.RootKey)
		w := newWallet(t, ten.ID, true, 20)
		daily, blocked := "100", []string{"7995"}
		issued, err := api.CreateWalletCardWithResponse(ctx, w.ID, &corridor.CreateWalletCardParams{},
			corridor.CardIssueRequest{DailyUsd: &daily, BlockedMcc: &blocked})
		if err != nil || issued.JSON201 == nil {
			t.Fatalf("issue: %v, status %d: %s", err, issued.StatusCode(), issued.Body)
		}
		card := issued.JSON201
		if card.Status != corridor.CardStatusActive || card.WalletId == nil || *card.WalletId != w.ID || len(card.Last4) != 4 {
			t.Fatalf("card %+v", card)
		}
		authorize := func(amount, mcc string) corridor.CardAuthorization {
			t.Helper()
			resp, err := api.SandboxCreateCardAuthorizationWithResponse(ctx, card.CardId, &corridor.SandboxCreateCardAuthorizationParams{},
				corridor.CardAuthorizationRequest{AmountUsd: amount, Mcc: mcc, MerchantName: "Corner Shop"})
			if err != nil || resp.JSON201 == nil {
				t.Fatalf("authorize: %v, status %d: %s", err, resp.StatusCode(), resp.Body)
			}
			return *resp.JSON201
		}
		if a := authorize("12.5", "5411"); a.Status != corridor.CardAuthorizationStatusAPPROVED || a.AmountUsd != "12.5" {
			t.Fatalf("approved %+v", a)
		}
		if a := authorize("3", "7995"); a.Status != corridor.CardAuthorizationStatusDECLINED || a.DeclineReason == nil || *a.DeclineReason != "MCC_BLOCKED" {
			t.Fatalf("declined %+v", a)
		}
		list, err := api.ListCardAuthorizationsWithResponse(ctx, card.CardId, &corridor.ListCardAuthorizationsParams{})
		if err != nil || list.JSON200 == nil || list.JSON200.Total != 2 {
			t.Fatalf("authorizations: %v, status %d: %s", err, list.StatusCode(), list.Body)
		}
		frozen, err := api.FreezeCardWithResponse(ctx, card.CardId, &corridor.FreezeCardParams{})
		if err != nil || frozen.JSON200 == nil || frozen.JSON200.Status != corridor.CardStatusInactive {
			t.Fatalf("freeze: %v, status %d: %s", err, frozen.StatusCode(), frozen.Body)
		}
	})
}
