package cards

import (
	"context"
	"fmt"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/test/testdb"
	"github.com/corridorhq/corridor/wiring"
)

// TestCards_KnownCardHoldLockedByTheClaim: once a funding-account card has been decided on, its
// next authorizations name the rows their hold will lock before their unit of work runs, and the
// unit's claim of the Idempotency-Key locks them: the hold sends no locking read of its own (the
// store's pipeline counts none), while the decisions come out as before: the daily cap declines
// exactly past its amount, a hold the balance does not cover declines INSUFFICIENT_FUNDS and the
// one that empties it is approved (no overdraft), a replayed key holds nothing twice, and the
// balance, its holds and the whole ledger add up. The server runs on a database of its own, so
// no other test's units move its counts.
func TestCards_KnownCardHoldLockedByTheClaim(t *testing.T) {
	t.Parallel()
	url := testdb.NewDatabase(context.Background(), t)
	if _, err := wiring.Migrate(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	srv := harness.NewServerOn(t, url, nil)
	if !srv.Service.Store.Pipelined() {
		t.Skip("the claim locks a unit's rows only in a pipeline batch (CORRIDOR_TEST_PIPELINE_LANES=0)")
	}
	ten := srv.NewTenant(t)
	hid := ten.Root.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).Expect(t, 201).JSON(t)["cardholderId"].(string)
	id := ten.Root.Post("/v1/cards", map[string]any{"cardholderId": hid}).Expect(t, 201).JSON(t)["cardId"].(string)
	ten.Root.Do("PUT", "/v1/cards/"+id+"/limits", map[string]any{"dailyUsd": "0.80"}).Expect(t, 200)
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "0.70"}).Expect(t, 201)

	n := 0
	decide := func(amount string) map[string]any {
		t.Helper()
		n++
		return authorize(t, ten.Root.With("Idempotency-Key", fmt.Sprintf("known-card-%d", n)), id, amount, "5411")
	}
	if a := decide("0.10"); a["status"] != "APPROVED" { // the card's first: it becomes known
		t.Fatalf("first authorization: %v", a)
	}
	before := srv.Service.Store.PipelineStats()
	var second any
	for i := 0; i < 4; i++ {
		a := decide("0.10")
		if a["status"] != "APPROVED" {
			t.Fatalf("authorization %d: %v", i+2, a)
		}
		if i == 0 {
			second = a["authorizationId"]
		}
	}
	replayed := authorize(t, ten.Root.With("Idempotency-Key", "known-card-2"), id, "0.10", "5411")
	if d := decide("0.40"); declineReason(d) != "DAILY_CAP" { // 0.50 held, 0.90 > 0.80
		t.Fatalf("past the daily cap: %v", d)
	}
	if d := decide("0.30"); declineReason(d) != "INSUFFICIENT_FUNDS" { // within the cap, 0.20 left
		t.Fatalf("past the balance: %v", d)
	}
	if a := decide("0.20"); a["status"] != "APPROVED" {
		t.Fatalf("the balance's last 0.20: %v", a)
	}
	after := srv.Service.Store.PipelineStats()
	if loads := (after.UnitLoads - before.UnitLoads) + (after.Loads - before.Loads); loads != 0 {
		t.Errorf("the known card's holds ran %d locking reads of their own; want none: the claims locked their rows", loads)
	}
	if replayed["authorizationId"] != second || replayed["status"] != "APPROVED" {
		t.Errorf("replayed key: %v; want authorization %v again", replayed, second)
	}
	got := ten.Root.Get("/v1/balances").Expect(t, 200).JSON(t)
	for _, b := range got["balances"].([]any) {
		if m := b.(map[string]any); m["asset"] == "USDC" && (m["availableBaseUnits"] != "0" || m["heldBaseUnits"] != "700000") {
			t.Errorf("service balance: %v; want 0 available, 0.70 held", m)
		}
	}
	harness.ExpectLedgerBalanced(t, url, ten)
}
