package cards

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestCards_ApprovalsExpire: an approval never captured lapses after the authorization lifetime.
// The expiry pass voids its hold (the funding balance is whole again), credits the day's window
// back and records it REVERSED with reversalReason EXPIRED; a capture afterwards is refused, and
// a merchant reversal reads reversalReason MERCHANT.
//
// Not parallel: the expiry pass covers every tenant, and this server's short lifetime must not
// lapse the approvals the package's parallel tests hold open (they run after it).
func TestCards_ApprovalsExpire(t *testing.T) {
	srv := harness.NewServer(t, func(c *wiring.Config) { c.CardAuthorizationLifetime = 300 * time.Millisecond })
	ten := srv.NewTenant(t)
	hid := ten.Root.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).Expect(t, 201).JSON(t)["cardholderId"].(string)
	id := ten.Root.Post("/v1/cards", map[string]any{"cardholderId": hid}).Expect(t, 201).JSON(t)["cardId"].(string)
	ten.Root.Do("PUT", "/v1/cards/"+id+"/limits", map[string]any{"dailyUsd": "10"}).Expect(t, 200)
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "10"}).Expect(t, 201)

	reversed := authorize(t, ten.Root, id, "1", "5411")
	got := ten.Root.Post("/v1/sandbox/card-authorizations/"+reversed["authorizationId"].(string)+"/reverse", nil).Expect(t, 200).JSON(t)
	if got["status"] != "REVERSED" || got["reversalReason"] != "MERCHANT" {
		t.Fatalf("merchant reversal: %v", got)
	}
	lapsing := authorize(t, ten.Root, id, "10", "5411")
	if lapsing["status"] != "APPROVED" || lapsing["reversalReason"] != nil {
		t.Fatalf("approval: %v", lapsing)
	}
	if a := authorize(t, ten.Root, id, "1", "5411"); declineReason(a) != "DAILY_CAP" {
		t.Fatalf("the open approval holds the day's budget: %v", a)
	}
	time.Sleep(400 * time.Millisecond)
	// The pass releases it (unless the server's own periodic pass already did).
	if _, err := srv.Service.Cards.ExpireApprovals(context.Background()); err != nil {
		t.Fatalf("expiry pass: %v", err)
	}
	if n, err := srv.Service.Cards.ExpireApprovals(context.Background()); err != nil || n != 0 {
		t.Fatalf("a second pass released %d more: %v", n, err)
	}
	authID := lapsing["authorizationId"].(string)
	list := ten.Root.Get("/v1/cards/"+id+"/authorizations").Expect(t, 200).JSON(t)
	var expired map[string]any
	for _, a := range list["authorizations"].([]any) {
		if a.(map[string]any)["authorizationId"] == authID {
			expired = a.(map[string]any)
		}
	}
	if expired["status"] != "REVERSED" || expired["reversalReason"] != "EXPIRED" {
		t.Fatalf("lapsed approval: %v", expired)
	}
	ten.Root.Post("/v1/sandbox/card-authorizations/"+authID+"/capture", nil).ExpectError(t, 409, "INVALID_STATE")
	// The hold is void and the window credited: the whole balance and the whole cap are back.
	if a := authorize(t, ten.Root, id, "10", "5411"); a["status"] != "APPROVED" {
		t.Fatalf("after expiry: %v", a)
	}
}
