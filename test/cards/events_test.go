package cards

import (
	"net/http"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestCards_CardEvents: a card's own changes each write one event, in the transaction of the
// change: card.issued, card.frozen (freezing twice announces once), card.unfrozen, and
// card.limits_updated on every PUT that succeeds (two in a row are two events). A refused
// change writes none, and another tenant's card is 404 without an event.
func TestCards_CardEvents(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 0)
	c := issue(t, ten.Root, w, map[string]any{"dailyUsd": "100"})
	id := c["cardId"].(string)

	issued := ten.Root.OneEventOf(t, "card.issued", id)
	if issued["status"] != "active" || issued["walletId"] != w.ID || issued["last4"] != c["last4"] || issued["funding"] != "SAFE" {
		t.Fatalf("card.issued: %v", issued)
	}

	for range 2 {
		ten.Root.Post("/v1/cards/"+id+"/freeze", nil).Expect(t, 200)
	}
	if frozen := ten.Root.OneEventOf(t, "card.frozen", id); frozen["status"] != "inactive" {
		t.Fatalf("card.frozen: %v", frozen)
	}
	ten.Root.Post("/v1/cards/"+id+"/unfreeze", nil).Expect(t, 200)
	ten.Root.Post("/v1/cards/"+id+"/unfreeze", nil).Expect(t, 200) // active already: no event
	if unfrozen := ten.Root.OneEventOf(t, "card.unfrozen", id); unfrozen["status"] != "active" {
		t.Fatalf("card.unfrozen: %v", unfrozen)
	}

	path := "/v1/cards/" + id + "/limits"
	ten.Root.Do(http.MethodPut, path, map[string]any{"monthlyUsd": "1000"}).Expect(t, 200)
	ten.Root.Do(http.MethodPut, path, map[string]any{"dailyUsd": nil, "blockedMcc": []string{"7995"}}).Expect(t, 200)
	ten.Root.Do(http.MethodPut, path, map[string]any{"dailyUsd": "0"}).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	other.Root.Do(http.MethodPut, path, map[string]any{"dailyUsd": "5"}).ExpectError(t, http.StatusNotFound, "CARD_NOT_FOUND")
	other.Root.Post("/v1/cards/"+id+"/freeze", nil).ExpectError(t, http.StatusNotFound, "CARD_NOT_FOUND")
	updates := ten.Root.EventsOf(t, "card.limits_updated", id)
	if len(updates) != 2 {
		t.Fatalf("%d card.limits_updated events, want 2: %v", len(updates), updates)
	}
	newest := updates[0]["data"].(map[string]any)["limits"].(map[string]any)
	oldest := updates[1]["data"].(map[string]any)["limits"].(map[string]any)
	if oldest["monthlyUsd"] != "1000" || oldest["dailyUsd"] != "100" ||
		newest["dailyUsd"] != nil || newest["monthlyUsd"] != "1000" || len(newest["blockedMcc"].([]any)) != 1 {
		t.Fatalf("limits in the events: oldest %v, newest %v", oldest, newest)
	}
	if all := ten.Root.EventsOf(t, "card.*", id); len(all) != 5 {
		t.Fatalf("card events: %d, want 5 (issued, frozen, unfrozen, 2 limits): %v", len(all), all)
	}
	if n := len(other.Root.EventsOf(t, "card.*", id)); n != 0 {
		t.Fatalf("another tenant sees %d events of the card", n)
	}
}

// TestCards_SettlementEvents: a captured Safe card spend announces each on-chain settlement
// step once, in the card_authorization family and on the authorization's id:
// settlement_submitted then settlement_confirmed, with the captured amount and the hash.
func TestCards_SettlementEvents(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 20)
	id := issue(t, ten.Root, w, nil)["cardId"].(string)
	aid := authorize(t, ten.Root, id, "5", "5411")["authorizationId"].(string)
	ten.Root.Post("/v1/sandbox/card-authorizations/"+aid+"/capture", map[string]any{"amountUsd": "4"}).Expect(t, 200)
	if captured := ten.Root.OneEventOf(t, "card_authorization.captured", aid); captured["settlementStatus"] != "PENDING" || captured["amount"] != "5" {
		t.Fatalf("captured: %v", captured)
	}
	harness.Eventually(t, "a settlement_confirmed event", func() bool {
		return len(ten.Root.EventsOf(t, "card_authorization.settlement_confirmed", aid)) > 0
	})
	confirmed := ten.Root.OneEventOf(t, "card_authorization.settlement_confirmed", aid)
	submitted := ten.Root.OneEventOf(t, "card_authorization.settlement_submitted", aid)
	for _, d := range []map[string]any{submitted, confirmed} {
		if d["status"] != "CAPTURED" || d["amount"] != "4" || d["cardId"] != id || d["transactionHash"] == nil {
			t.Fatalf("settlement event: %v", d)
		}
	}
	if submitted["settlementStatus"] != "SUBMITTED" || confirmed["settlementStatus"] != "CONFIRMED" ||
		confirmed["transactionHash"] != submitted["transactionHash"] {
		t.Fatalf("settlement steps: %v then %v", submitted, confirmed)
	}
	if n := len(ten.Root.EventsOf(t, "card_authorization.settlement_failed", aid)); n != 0 {
		t.Fatalf("%d settlement_failed events", n)
	}
}

// TestCards_AuthorizationEvents: an approval's event is written in the statement that writes the
// approval and its windows: card_authorization.approved once, with its amount, card and status,
// for the tenant alone; a decline's event carries its reason. The approval counted in its
// windows: the next authorization past the cap declines.
func TestCards_AuthorizationEvents(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 10)
	id := issue(t, ten.Root, w, map[string]any{"dailyUsd": "5"})["cardId"].(string)

	a := authorize(t, ten.Root, id, "3", "5411")
	aid, _ := a["authorizationId"].(string)
	if a["status"] != "APPROVED" || aid == "" {
		t.Fatalf("approval: %v", a)
	}
	approved := ten.Root.OneEventOf(t, "card_authorization.approved", aid)
	if approved["status"] != "APPROVED" || approved["amount"] != "3" || approved["cardId"] != id {
		t.Fatalf("card_authorization.approved: %v", approved)
	}
	if n := len(other.Root.EventsOf(t, "card_authorization.*", aid)); n != 0 {
		t.Fatalf("another tenant sees %d events of the authorization", n)
	}
	d := authorize(t, ten.Root, id, "2.01", "5411") // 3 + 2.01 > the daily 5
	did, _ := d["authorizationId"].(string)
	if declineReason(d) != "DAILY_CAP" {
		t.Fatalf("past the cap: %v", d)
	}
	if declined := ten.Root.OneEventOf(t, "card_authorization.declined", did); declined["declineReason"] != "DAILY_CAP" || declined["cardId"] != id {
		t.Fatalf("card_authorization.declined: %v", declined)
	}
}
