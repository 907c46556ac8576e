package treasury

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/treasury"

	"github.com/corridorhq/corridor/test/harness"
)

// TestTreasury_YieldAfter30Days: a YIELD bucket holding 1000 USDC at 450 bps accrues, after
// thirty simulated days, exactly thirty times balance × apyBps / 10000 / 365 rounded down to
// the base unit, booked on the ledger; a retry of the advance with its Idempotency-Key books
// nothing more; buckets without apyBps earn nothing.
func TestTreasury_YieldAfter30Days(t *testing.T) {
	ten := env().NewTenant(t)
	account := createAccount(t, ten.Root, []owner{harness.NewOwner(t)}, 1,
		bucket("Operating", "OPERATING", 5000), bucket("Yield", "YIELD", 5000, 450))
	id := account["accountId"].(string)
	fund(t, ten.Root, bucketAt(account, 1), "1000")
	fund(t, ten.Root, bucketAt(account, 0), "10")

	c := ten.Root.With("Idempotency-Key", "advance-30")
	first := c.Post("/v1/sandbox/treasury/accounts/"+id+"/advance", map[string]any{"days": 30}).Expect(t, 200)
	again := c.Post("/v1/sandbox/treasury/accounts/"+id+"/advance", map[string]any{"days": 30}).Expect(t, 200)
	if string(first.Body) != string(again.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the retry was not replayed: %s vs %s", first.Body, again.Body)
	}

	daily := int64(1000_000000) * 450 / (10000 * 365) // 123287 base units, rounded down
	want := core.FormatUSD(30 * daily)
	if daily != treasury.DailyYield(1000_000000, 450) || want != "3.69861" {
		t.Fatalf("formula: daily %d, 30 days %s", daily, want)
	}
	got := ten.Root.Get("/v1/treasury/accounts/"+id).Expect(t, 200).JSON(t)
	if y := bucketAt(got, 1)["accruedYieldUsd"]; y != want {
		t.Errorf("accrued yield %v, want %s", y, want)
	}
	if y := bucketAt(got, 0)["accruedYieldUsd"]; y != "0" {
		t.Errorf("a bucket without apyBps accrued %v", y)
	}
	if got["clockOffsetDays"] != float64(30) {
		t.Errorf("clockOffsetDays %v", got["clockOffsetDays"])
	}
	// The yield is a ledger account of the tenant; the on-chain balance is untouched.
	if b := bucketAt(got, 1)["balanceUsd"]; b != "1000" {
		t.Errorf("on-chain balance %v", b)
	}
	accounts := ten.Root.Get("/v1/ledger/accounts?take=100").Expect(t, 200).JSON(t)
	if !containsRef(accounts, "treasury:"+bucketAt(got, 1)["bucketId"].(string)+":yield") {
		t.Errorf("no treasury yield ledger account: %v", accounts)
	}
	// Thirty transfers, one per day, and the books still balance.
	entries := ten.Root.Get("/v1/ledger/entries?take=100").Expect(t, 200).JSON(t)
	yieldEntries := 0
	for _, e := range entries["entries"].([]any) {
		if ref, _ := e.(map[string]any)["reference"].(string); strings.HasPrefix(ref, "treasury:") {
			yieldEntries++
		}
	}
	if yieldEntries != 30 {
		t.Errorf("%d yield transfers in the journal, want 30", yieldEntries)
	}
	tb := ten.Root.Get("/v1/ledger/trial-balance").Expect(t, 200).JSON(t)
	for _, a := range tb["assets"].([]any) {
		if a.(map[string]any)["balanced"] != true {
			t.Errorf("trial balance: %v", tb)
		}
	}
}

func containsRef(accounts map[string]any, ref string) bool {
	for _, a := range accounts["accounts"].([]any) {
		if a.(map[string]any)["reference"] == ref {
			return true
		}
	}
	return false
}

// TestTreasury_ParallelAdvances: parallel clock advances of one account each move it one day
// and book one day of yield each: five calls, five days, nothing lost or doubled.
func TestTreasury_ParallelAdvances(t *testing.T) {
	ten := env().NewTenant(t)
	account := createAccount(t, ten.Root, []owner{harness.NewOwner(t)}, 1, bucket("Yield", "YIELD", 10000, 1000))
	id := account["accountId"].(string)
	fund(t, ten.Root, bucketAt(account, 0), "500")
	var wg sync.WaitGroup
	statuses := make([]int, 5)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = ten.Root.With("Idempotency-Key", fmt.Sprintf("par-%d", i)).
				Post("/v1/sandbox/treasury/accounts/"+id+"/advance", map[string]any{"days": 1}).Status
		}()
	}
	wg.Wait()
	for i, s := range statuses {
		if s != http.StatusOK {
			t.Fatalf("advance %d: %d", i, s)
		}
	}
	got := ten.Root.Get("/v1/treasury/accounts/"+id).Expect(t, 200).JSON(t)
	want := core.FormatUSD(5 * treasury.DailyYield(500_000000, 1000))
	if got["clockOffsetDays"] != float64(5) || bucketAt(got, 0)["accruedYieldUsd"] != want {
		t.Fatalf("after five parallel advances: offset %v, yield %v, want 5 and %s", got["clockOffsetDays"], bucketAt(got, 0)["accruedYieldUsd"], want)
	}
}
