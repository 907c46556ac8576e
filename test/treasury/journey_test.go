package treasury

import (
	"context"
	"fmt"
	"github.com/corridorhq/corridor/ports"
	"sync"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestTreasury_SweepExcessJourney: an account of three buckets; one funded from the faucet; a
// SWEEP_EXCESS rule fires after the clock helper moves the account a day ahead and proposes a
// sweep (nothing moves); a second window while it is pending proposes nothing more; an owner
// signs, the sweep's payment completes on chain, balances and drift follow, and the ledger
// reconciles with the chain at zero drift.
func TestTreasury_SweepExcessJourney(t *testing.T) {
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	account := createAccount(t, ten.Root, []owner{o}, 1,
		bucket("Operating", "OPERATING", 5000), bucket("Reserve", "RESERVE", 3000), bucket("Yield", "YIELD", 2000))
	id := account["accountId"].(string)
	operating, reserve := bucketAt(account, 0), bucketAt(account, 1)
	fund(t, ten.Root, operating, "100")

	rule := ten.Root.Post("/v1/treasury/accounts/"+id+"/rules", map[string]any{"type": "SWEEP_EXCESS",
		"sourceBucketId": operating["bucketId"], "destBucketId": reserve["bucketId"], "thresholdUsd": "40"}).Expect(t, 201).JSON(t)
	if rule["intervalSeconds"] != float64(3600) || rule["enabled"] != true || rule["lastFiredAt"] != nil || rule["targetUsd"] != nil {
		t.Fatalf("rule defaults: %v", rule)
	}
	if n := len(sweeps(t, ten.Root, id)); n != 0 {
		t.Fatalf("%d sweeps before the rule's first window", n)
	}

	adv := ten.Root.Post("/v1/sandbox/treasury/accounts/"+id+"/advance", map[string]any{"days": 1}).Expect(t, 200).JSON(t)
	if adv["clockOffsetDays"] != float64(1) || adv["daysAdvanced"] != float64(1) {
		t.Fatalf("advance: %v", adv)
	}
	var sweep map[string]any
	poll(t, func() map[string]any { return map[string]any{"sweeps": sweeps(t, ten.Root, id)} },
		func(m map[string]any) bool {
			list := m["sweeps"].([]any)
			if len(list) == 1 {
				sweep = list[0].(map[string]any)
			}
			return len(list) > 0
		})
	if sweep["status"] != "PROPOSED" || sweep["paymentStatus"] != "AWAITING_SIGNATURE" || sweep["amountUsd"] != "60" ||
		sweep["ruleId"] != rule["ruleId"] || sweep["sourceBucketId"] != operating["bucketId"] || sweep["destBucketId"] != reserve["bucketId"] {
		t.Fatalf("sweep: %v", sweep)
	}
	// Nothing moved: the proposal waits for an owner.
	if got := ten.Root.Get("/v1/treasury/accounts/"+id).Expect(t, 200).JSON(t); bucketAt(got, 0)["balanceUsd"] != "100" {
		t.Fatalf("operating moved before signing: %v", bucketAt(got, 0))
	}

	// Another window while the sweep is pending: recorded, no second sweep.
	ten.Root.Post("/v1/sandbox/treasury/accounts/"+id+"/advance", map[string]any{"days": 1}).Expect(t, 200)
	poll(t, func() map[string]any {
		return ten.Root.Get("/v1/treasury/accounts/"+id+"/rules").Expect(t, 200).JSON(t)["rules"].([]any)[0].(map[string]any)
	}, func(m map[string]any) bool { return m["lastSkipReason"] == "PREVIOUS_SWEEP_PENDING" })
	if n := len(sweeps(t, ten.Root, id)); n != 1 {
		t.Fatalf("%d sweeps while the first is pending, want 1", n)
	}

	sign(t, ten.Root, sweep["paymentId"].(string), o)
	done := poll(t, func() map[string]any { return sweeps(t, ten.Root, id)[0].(map[string]any) },
		func(m map[string]any) bool { return m["status"] != "PROPOSED" })
	if done["status"] != "COMPLETED" || done["paymentStatus"] != "COMPLETED" || done["failureReason"] != nil {
		t.Fatalf("sweep after signing: %v", done)
	}

	got := ten.Root.Get("/v1/treasury/accounts/"+id).Expect(t, 200).JSON(t)
	want := []struct {
		balance, drift string
		bps            float64
	}{{"40", "-10", -1000}, {"60", "30", 3000}, {"0", "-20", -2000}}
	for i, w := range want {
		b := bucketAt(got, i)
		if b["balanceUsd"] != w.balance || b["driftUsd"] != w.drift || b["driftBps"] != w.bps {
			t.Errorf("bucket %d: %v, want balance %s drift %s (%v bps)", i, b, w.balance, w.drift, w.bps)
		}
	}
	if got["totalUsd"] != "100" {
		t.Errorf("totalUsd %v, want 100", got["totalUsd"])
	}

	// The ledger mirror follows the chain: once the indexer has the sweep's transfer, zero drift
	// for every bucket wallet (the totals alone agree earlier: the sweep stays in the tenant).
	rec := poll(t, func() map[string]any { return ten.Root.Get("/v1/ledger/reconciliation").Expect(t, 200).JSON(t) },
		func(m map[string]any) bool {
			for _, w := range m["wallets"].([]any) {
				if w.(map[string]any)["drift"] != "0" {
					return false
				}
			}
			return true
		})
	totals := rec["totals"].(map[string]any)
	if totals["drift"] != "0" || totals["ledgerBalance"] != "100" || totals["onchainBalance"] != "100" || rec["total"] != float64(3) {
		t.Errorf("reconciliation: %v", rec)
	}
}

// TestTreasury_NoDoubleSweepUnderParallelRuns: four clock advances at once each run the
// account's rules; with the periodic runner also ticking, the rule still proposes one sweep.
func TestTreasury_NoDoubleSweepUnderParallelRuns(t *testing.T) {
	ten := env().NewTenant(t)
	account := createAccount(t, ten.Root, []owner{harness.NewOwner(t)}, 1, bucket("a", "OPERATING", 5000), bucket("b", "RESERVE", 5000))
	id := account["accountId"].(string)
	fund(t, ten.Root, bucketAt(account, 0), "20")
	rule := ten.Root.Post("/v1/treasury/accounts/"+id+"/rules", map[string]any{"type": "TOP_UP",
		"sourceBucketId": bucketAt(account, 0)["bucketId"], "destBucketId": bucketAt(account, 1)["bucketId"],
		"targetUsd": "7.5", "intervalSeconds": 60}).Expect(t, 201).JSON(t)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ten.Root.With("Idempotency-Key", fmt.Sprintf("adv-%d", i)).
				Post("/v1/sandbox/treasury/accounts/"+id+"/advance", map[string]any{"days": 1}).Expect(t, 200)
		}()
	}
	wg.Wait()
	// Every run after the first finds the sweep pending and records it.
	poll(t, func() map[string]any {
		return ten.Root.Get("/v1/treasury/accounts/"+id+"/rules").Expect(t, 200).JSON(t)["rules"].([]any)[0].(map[string]any)
	}, func(m map[string]any) bool { return m["lastFiredAt"] != nil })
	ten.Root.Post("/v1/sandbox/treasury/accounts/"+id+"/advance", map[string]any{"days": 1}).Expect(t, 200)
	poll(t, func() map[string]any {
		return ten.Root.Get("/v1/treasury/accounts/"+id+"/rules").Expect(t, 200).JSON(t)["rules"].([]any)[0].(map[string]any)
	}, func(m map[string]any) bool { return m["lastSkipReason"] == "PREVIOUS_SWEEP_PENDING" })
	list := sweeps(t, ten.Root, id)
	if len(list) != 1 {
		t.Fatalf("%d sweeps, want 1: %v", len(list), list)
	}
	if s := list[0].(map[string]any); s["amountUsd"] != "7.5" || s["ruleId"] != rule["ruleId"] {
		t.Fatalf("top-up sweep: %v", s)
	}
}

// TestTreasury_RulesOnOneSourceDoNotOvercommit: two SWEEP_EXCESS rules draining one bucket of
// 20 USDC into two others fire in one window. The first proposes the whole excess; the second
// reads the bucket less that sweep still on its way and proposes nothing, where it proposed the
// same 20 again and that payment could only fail on chain.
func TestTreasury_RulesOnOneSourceDoNotOvercommit(t *testing.T) {
	ten := env().NewTenant(t)
	account := createAccount(t, ten.Root, []owner{harness.NewOwner(t)}, 1,
		bucket("a", "OPERATING", 4000), bucket("b", "RESERVE", 3000), bucket("c", "YIELD", 3000))
	id := account["accountId"].(string)
	fund(t, ten.Root, bucketAt(account, 0), "20")
	var rules []string
	for _, dest := range []int{1, 2} {
		rules = append(rules, ten.Root.Post("/v1/treasury/accounts/"+id+"/rules", map[string]any{"type": "SWEEP_EXCESS",
			"sourceBucketId": bucketAt(account, 0)["bucketId"], "destBucketId": bucketAt(account, dest)["bucketId"],
			"thresholdUsd": "0"}).Expect(t, 201).JSON(t)["ruleId"].(string))
	}
	ten.Root.Post("/v1/sandbox/treasury/accounts/"+id+"/advance", map[string]any{"days": 1}).Expect(t, 200)
	// The runner's job evaluates both windows; a quiet one shows only in the rule's row.
	harness.Eventually(t, "both rules' windows evaluated", func() bool {
		evaluated := 0
		err := env().Service.Store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
			for _, ruleID := range rules {
				r, err := tx.Treasury().LockRule(ctx, ten.ID, ruleID)
				if err != nil {
					return err
				}
				if r.LastEvaluatedAt != nil {
					evaluated++
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return evaluated == len(rules)
	})
	list := sweeps(t, ten.Root, id)
	if len(list) != 1 || list[0].(map[string]any)["amountUsd"] != "20" {
		t.Fatalf("sweeps from one 20 USDC bucket: %v, want one of 20", list)
	}
}
