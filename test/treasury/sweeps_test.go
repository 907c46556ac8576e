package treasury

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestTreasury_ManualSweeps: with several owners ownerAddress is required and must be an
// owner; bad amounts and buckets are refused by field; a valid sweep is PROPOSED with its
// payment awaiting signatures; parallel sweeps from one bucket each get their own payment; a
// retry with one Idempotency-Key proposes once.
func TestTreasury_ManualSweeps(t *testing.T) {
	ten := env().NewTenant(t)
	o1, o2 := harness.NewOwner(t), harness.NewOwner(t)
	account := createAccount(t, ten.Root, []owner{o1, o2}, 2, bucket("a", "OPERATING", 5000), bucket("b", "RESERVE", 5000))
	id := account["accountId"].(string)
	a, b := bucketAt(account, 0)["bucketId"], bucketAt(account, 1)["bucketId"]
	fund(t, ten.Root, bucketAt(account, 0), "50")
	path := "/v1/treasury/accounts/" + id + "/sweeps"

	refusals := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"sourceBucketId": a, "destBucketId": b, "amountUsd": "5"}, "ownerAddress"},
		{map[string]any{"sourceBucketId": a, "destBucketId": b, "amountUsd": "5", "ownerAddress": harness.NewOwner(t).Address.Hex()}, "ownerAddress"},
		{map[string]any{"sourceBucketId": a, "destBucketId": b, "amountUsd": "0", "ownerAddress": o1.Address.Hex()}, "amountUsd"},
		{map[string]any{"sourceBucketId": a, "destBucketId": b, "amountUsd": "1.1234567", "ownerAddress": o1.Address.Hex()}, "amountUsd"},
		{map[string]any{"sourceBucketId": a, "destBucketId": a, "amountUsd": "5", "ownerAddress": o1.Address.Hex()}, "destBucketId"},
		{map[string]any{"sourceBucketId": "bkt_nope", "destBucketId": b, "amountUsd": "5", "ownerAddress": o1.Address.Hex()}, "sourceBucketId"},
	}
	for _, r := range refusals {
		e := ten.Root.Post(path, r.body).ExpectError(t, 400, "VALIDATION_FAILED")
		if !strings.Contains(fields(t, e), r.field+":") {
			t.Errorf("%v: fields %s do not name %s", r.body, fields(t, e), r.field)
		}
	}
	if n := len(sweeps(t, ten.Root, id)); n != 0 {
		t.Fatalf("refusals proposed %d sweeps", n)
	}

	body := map[string]any{"sourceBucketId": a, "destBucketId": b, "amountUsd": "5", "ownerAddress": o1.Address.Hex()}
	c := ten.Root.With("Idempotency-Key", "sweep-1")
	first := c.Post(path, body).Expect(t, 201)
	c.Post(path, body).Expect(t, 201)
	s := first.JSON(t)
	if s["status"] != "PROPOSED" || s["paymentStatus"] != "AWAITING_SIGNATURE" || s["ruleId"] != nil || s["amountUsd"] != "5" {
		t.Fatalf("sweep: %v", s)
	}

	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ten.Root.With("Idempotency-Key", fmt.Sprintf("par-sweep-%d", i)).Post(path, body).Expect(t, 201)
		}()
	}
	wg.Wait()
	list := sweeps(t, ten.Root, id)
	payments := map[string]bool{}
	for _, x := range list {
		payments[x.(map[string]any)["paymentId"].(string)] = true
	}
	if len(list) != 5 || len(payments) != 5 {
		t.Fatalf("%d sweeps over %d payments, want 5 and 5", len(list), len(payments))
	}

	// Signed by both owners, the first sweep completes; the others still wait.
	sign(t, ten.Root, s["paymentId"].(string), o1)
	sign(t, ten.Root, s["paymentId"].(string), o2)
	poll(t, func() map[string]any {
		for _, x := range sweeps(t, ten.Root, id) {
			if m := x.(map[string]any); m["sweepId"] == s["sweepId"] {
				return m
			}
		}
		return nil
	}, func(m map[string]any) bool { return m["status"] == "COMPLETED" })
	got := ten.Root.Get("/v1/treasury/accounts/"+id).Expect(t, 200).JSON(t)
	if bucketAt(got, 0)["balanceUsd"] != "45" || bucketAt(got, 1)["balanceUsd"] != "5" || got["totalUsd"] != "50" {
		t.Fatalf("after the sweep: %v", got)
	}

	// Each sweep announced its proposal once; the completed one announces its outcome once,
	// in its payment's unit of work, and the waiting ones none yet.
	sweepID := s["sweepId"].(string)
	ten.Root.OneEventOf(t, "treasury_sweep.proposed", sweepID)
	if done := ten.Root.OneEventOf(t, "treasury_sweep.completed", sweepID); done["status"] != "COMPLETED" || done["amount"] != "5" ||
		done["paymentId"] != s["paymentId"] || done["accountId"] != id {
		t.Fatalf("treasury_sweep.completed: %v", done)
	}
	outcomes := 0
	for _, x := range list {
		outcomes += len(ten.Root.EventsOf(t, "treasury_sweep.*", x.(map[string]any)["sweepId"].(string))) - 1
	}
	if outcomes != 1 {
		t.Fatalf("%d sweep outcome events, want 1", outcomes)
	}
	// A waiting sweep's payment cancelled (only the newest queued one can be, the others are
	// 409; each cancel makes the next the newest): its sweep announces treasury_sweep.cancelled
	// once.
	cancelled := 0
	for _, x := range list {
		m := x.(map[string]any)
		if m["sweepId"] == sweepID || ten.Root.Post("/v1/payments/"+m["paymentId"].(string)+"/cancel", nil).Status != 200 {
			continue
		}
		cancelled++
		if c := ten.Root.OneEventOf(t, "treasury_sweep.cancelled", m["sweepId"].(string)); c["status"] != "CANCELLED" || c["paymentId"] != m["paymentId"] {
			t.Fatalf("treasury_sweep.cancelled: %v", c)
		}
	}
	if cancelled == 0 {
		t.Fatal("no sweep payment could be cancelled")
	}
}
