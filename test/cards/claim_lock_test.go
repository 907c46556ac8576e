package cards

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/corridorhq/corridor/adapters/postgres"
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
// balance, its holds and the whole ledger add up. Concurrent authorizations on two known cards
// hold exactly what the balance covers. The server runs on a database of its own, so
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
	srv.AwaitStartSweep(t) // its ledger write is never counted as the cards'
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
	// On Citus the claim runs alone and locks nothing (docs/decisions/scaling.md), so the hold
	// pays its own locking read there; the decisions below hold the same.
	citus, err := postgres.IsCitus(context.Background(), srv.Service.Store.DB().DB)
	if err != nil {
		t.Fatal(err)
	}
	if loads := (after.UnitLoads - before.UnitLoads) + (after.Loads - before.Loads); loads != 0 && !citus {
		t.Errorf("the known card's holds ran %d locking reads of their own; want none: the claims locked their rows", loads)
	}
	if replayed["authorizationId"] != second || replayed["status"] != "APPROVED" {
		t.Errorf("replayed key: %v; want authorization %v again", replayed, second)
	}
	expectServiceBalance(t, ten.Root, "0", "700000")

	// Concurrently, on two known cards of the tenant: exactly what the balance covers is held.
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "1.00"}).Expect(t, 201)
	known := make([]string, 2)
	for i := range known {
		known[i] = ten.Root.Post("/v1/cards", map[string]any{"cardholderId": hid}).Expect(t, 201).JSON(t)["cardId"].(string)
		if a := authorize(t, ten.Root.With("Idempotency-Key", fmt.Sprintf("first-%d", i)), known[i], "0.05", "5411"); a["status"] != "APPROVED" {
			t.Fatalf("a new card's first authorization: %v", a)
		}
	}
	outcomes := concurrentAuthorizations(t, ten.Root, known, 36, "0.05")
	if outcomes["APPROVED:"] != 18 || outcomes["DECLINED:INSUFFICIENT_FUNDS"] != 18 {
		t.Errorf("36 concurrent holds of 0.05 against 0.90: %v; want 18 approved, 18 INSUFFICIENT_FUNDS", outcomes)
	}
	expectServiceBalance(t, ten.Root, "0", "1700000")
	harness.ExpectLedgerBalanced(t, url, ten)
}

// concurrentAuthorizations sends n authorizations of amount at once, round robin over cards,
// each with a key of its own, and counts their outcomes (status:declineReason).
func concurrentAuthorizations(t *testing.T, c *harness.Client, cards []string, n int, amount string) map[string]int {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	counts := map[string]int{}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := authorize(t, c.With("Idempotency-Key", fmt.Sprintf("concurrent-%d", i)), cards[i%len(cards)], amount, "5411")
			mu.Lock()
			counts[fmt.Sprint(a["status"])+":"+declineReason(a)]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return counts
}

// expectServiceBalance checks the caller's USDC service balance: available and held base units.
func expectServiceBalance(t *testing.T, c *harness.Client, available, held string) {
	t.Helper()
	got := c.Get("/v1/balances").Expect(t, 200).JSON(t)
	for _, b := range got["balances"].([]any) {
		if m := b.(map[string]any); m["asset"] == "USDC" && (m["availableBaseUnits"] != available || m["heldBaseUnits"] != held) {
			t.Errorf("service balance: %v; want %s available, %s held", m, available, held)
		}
	}
}
