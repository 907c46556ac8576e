package treasury

import (
	"strings"
	"sync"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestTreasury_RuleValidation: each refusal names its field and stores nothing.
func TestTreasury_RuleValidation(t *testing.T) {
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	account := ten.Root.Post("/v1/treasury/accounts", map[string]any{"name": "rules", "owners": ownersBody(o),
		"buckets": []any{bucket("a", "OPERATING", 5000), bucket("b", "RESERVE", 5000)}}).Expect(t, 202).JSON(t)
	id := account["accountId"].(string)
	a, b := bucketAt(account, 0)["bucketId"], bucketAt(account, 1)["bucketId"]
	foreign := ten.Root.Post("/v1/treasury/accounts", map[string]any{"name": "other", "owners": ownersBody(o),
		"buckets": []any{bucket("x", "OPERATING", 10000)}}).Expect(t, 202).JSON(t)
	foreignBucket := bucketAt(foreign, 0)["bucketId"]

	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no type", map[string]any{}, "type"},
		{"unknown type", map[string]any{"type": "SWEEP_ALL"}, "type"},
		{"bucket of another account", map[string]any{"type": "SWEEP_EXCESS", "sourceBucketId": foreignBucket, "destBucketId": b, "thresholdUsd": "1"}, "sourceBucketId"},
		{"unknown bucket", map[string]any{"type": "SWEEP_EXCESS", "sourceBucketId": a, "destBucketId": "bkt_nope", "thresholdUsd": "1"}, "destBucketId"},
		{"same bucket", map[string]any{"type": "SWEEP_EXCESS", "sourceBucketId": a, "destBucketId": a, "thresholdUsd": "1"}, "destBucketId"},
		{"sweep without threshold", map[string]any{"type": "SWEEP_EXCESS", "sourceBucketId": a, "destBucketId": b}, "thresholdUsd"},
		{"sweep with target", map[string]any{"type": "SWEEP_EXCESS", "sourceBucketId": a, "destBucketId": b, "thresholdUsd": "1", "targetUsd": "2"}, "targetUsd"},
		{"top-up without target", map[string]any{"type": "TOP_UP", "sourceBucketId": a, "destBucketId": b}, "targetUsd"},
		{"top-up trigger above target", map[string]any{"type": "TOP_UP", "sourceBucketId": a, "destBucketId": b, "targetUsd": "5", "thresholdUsd": "6"}, "thresholdUsd"},
		{"rebalance with buckets", map[string]any{"type": "REBALANCE_TO_TARGET", "sourceBucketId": a}, "sourceBucketId"},
		{"interval below minimum", map[string]any{"type": "REBALANCE_TO_TARGET", "intervalSeconds": 59}, "intervalSeconds"},
		{"interval above maximum", map[string]any{"type": "REBALANCE_TO_TARGET", "intervalSeconds": 2592001}, "intervalSeconds"},
		{"seven decimals", map[string]any{"type": "SWEEP_EXCESS", "sourceBucketId": a, "destBucketId": b, "thresholdUsd": "1.0000001"}, "thresholdUsd"},
		{"negative amount", map[string]any{"type": "SWEEP_EXCESS", "sourceBucketId": a, "destBucketId": b, "thresholdUsd": "-1"}, "thresholdUsd"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := ten.Root.Post("/v1/treasury/accounts/"+id+"/rules", tc.body).ExpectError(t, 400, "VALIDATION_FAILED")
			if !strings.Contains(fields(t, e), tc.field+":") {
				t.Fatalf("fields %s do not name %s", fields(t, e), tc.field)
			}
		})
	}
	e := ten.Root.Post("/v1/treasury/accounts/"+foreign["accountId"].(string)+"/rules", map[string]any{"type": "REBALANCE_TO_TARGET"}).
		ExpectError(t, 400, "VALIDATION_FAILED")
	if !strings.Contains(fields(t, e), "type:") {
		t.Fatalf("a one-bucket account's rule: %v", e)
	}
	if got := ten.Root.Get("/v1/treasury/accounts/"+id+"/rules").Expect(t, 200).JSON(t); got["total"] != float64(0) {
		t.Fatalf("refused rules were stored: %v", got)
	}
}

// TestTreasury_RulePatchAndDelete: PATCH changes only sent fields, null clears an amount where
// the type allows it, bad values change nothing; DELETE removes the rule from the list and
// later PATCH or DELETE answer 404.
func TestTreasury_RulePatchAndDelete(t *testing.T) {
	ten := env().NewTenant(t)
	account := ten.Root.Post("/v1/treasury/accounts", map[string]any{"name": "rules", "owners": ownersBody(harness.NewOwner(t)),
		"buckets": []any{bucket("a", "OPERATING", 5000), bucket("b", "RESERVE", 5000)}}).Expect(t, 202).JSON(t)
	id := account["accountId"].(string)
	a, b := bucketAt(account, 0)["bucketId"], bucketAt(account, 1)["bucketId"]
	rule := ten.Root.Post("/v1/treasury/accounts/"+id+"/rules", map[string]any{"type": "TOP_UP", "sourceBucketId": a, "destBucketId": b,
		"targetUsd": "100", "thresholdUsd": "50", "intervalSeconds": 600}).Expect(t, 201).JSON(t)
	path := "/v1/treasury/rules/" + rule["ruleId"].(string)

	got := ten.Root.Do("PATCH", path, map[string]any{"enabled": false, "intervalSeconds": 120}).Expect(t, 200).JSON(t)
	if got["enabled"] != false || got["intervalSeconds"] != float64(120) || got["targetUsd"] != "100" || got["thresholdUsd"] != "50" {
		t.Fatalf("patch enabled/interval: %v", got)
	}
	// null clears the trigger: TOP_UP then refills below its target.
	got = ten.Root.Do("PATCH", path, map[string]any{"thresholdUsd": nil, "targetUsd": "80.5"}).Expect(t, 200).JSON(t)
	if got["thresholdUsd"] != nil || got["targetUsd"] != "80.5" || got["enabled"] != false {
		t.Fatalf("patch amounts: %v", got)
	}
	refusals := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"targetUsd": nil}, "targetUsd"},
		{map[string]any{"targetUsd": "abc"}, "targetUsd"},
		{map[string]any{"targetUsd": 12}, "targetUsd"},
		{map[string]any{"thresholdUsd": "90"}, "thresholdUsd"},
		{map[string]any{"intervalSeconds": 1}, "intervalSeconds"},
	}
	for _, r := range refusals {
		e := ten.Root.Do("PATCH", path, r.body).ExpectError(t, 400, "VALIDATION_FAILED")
		if !strings.Contains(fields(t, e), r.field+":") {
			t.Errorf("%v: fields %s do not name %s", r.body, fields(t, e), r.field)
		}
	}
	ten.Root.Do("PATCH", path, map[string]any{"type": "SWEEP_EXCESS"}).ExpectError(t, 400, "VALIDATION_FAILED")
	after := ten.Root.Get("/v1/treasury/accounts/"+id+"/rules").Expect(t, 200).JSON(t)["rules"].([]any)[0].(map[string]any)
	if after["targetUsd"] != "80.5" || after["thresholdUsd"] != nil || after["intervalSeconds"] != float64(120) || after["type"] != "TOP_UP" {
		t.Fatalf("a refused patch changed the rule: %v", after)
	}

	deleted := ten.Root.Do("DELETE", path, nil).Expect(t, 200).JSON(t)
	if deleted["ruleId"] != rule["ruleId"] || deleted["enabled"] != false {
		t.Fatalf("delete: %v", deleted)
	}
	if got := ten.Root.Get("/v1/treasury/accounts/"+id+"/rules").Expect(t, 200).JSON(t); got["total"] != float64(0) {
		t.Fatalf("a deleted rule is listed: %v", got)
	}
	ten.Root.Do("PATCH", path, map[string]any{"enabled": true}).ExpectError(t, 404, "TREASURY_RULE_NOT_FOUND")
	ten.Root.Do("DELETE", path, nil).ExpectError(t, 404, "TREASURY_RULE_NOT_FOUND")
}

// TestTreasury_DisabledRuleDoesNotFire: a disabled rule proposes nothing however far the clock
// moves; enabled again, it fires.
func TestTreasury_DisabledRuleDoesNotFire(t *testing.T) {
	ten := env().NewTenant(t)
	account := createAccount(t, ten.Root, []owner{harness.NewOwner(t)}, 1, bucket("a", "OPERATING", 5000), bucket("b", "RESERVE", 5000))
	id := account["accountId"].(string)
	fund(t, ten.Root, bucketAt(account, 0), "30")
	rule := ten.Root.Post("/v1/treasury/accounts/"+id+"/rules", map[string]any{"type": "REBALANCE_TO_TARGET", "enabled": false}).Expect(t, 201).JSON(t)
	ten.Root.Post("/v1/sandbox/treasury/accounts/"+id+"/advance", map[string]any{"days": 2}).Expect(t, 200)
	if n := len(sweeps(t, ten.Root, id)); n != 0 {
		t.Fatalf("a disabled rule proposed %d sweeps", n)
	}
	ten.Root.Do("PATCH", "/v1/treasury/rules/"+rule["ruleId"].(string), map[string]any{"enabled": true}).Expect(t, 200)
	ten.Root.Post("/v1/sandbox/treasury/accounts/"+id+"/advance", map[string]any{"days": 1}).Expect(t, 200)
	got := poll(t, func() map[string]any { return map[string]any{"sweeps": sweeps(t, ten.Root, id)} },
		func(m map[string]any) bool { return len(m["sweeps"].([]any)) > 0 })
	s := got["sweeps"].([]any)[0].(map[string]any)
	if s["amountUsd"] != "15" || s["sourceBucketId"] != bucketAt(account, 0)["bucketId"] {
		t.Fatalf("rebalance sweep: %v", s)
	}
}

// TestTreasury_RuleCapUnderConcurrency: an account holds at most 50 rules, also when the last
// ones are created in parallel; a deleted rule frees its place.
func TestTreasury_RuleCapUnderConcurrency(t *testing.T) {
	ten := env().NewTenant(t)
	account := ten.Root.Post("/v1/treasury/accounts", map[string]any{"name": "cap", "owners": ownersBody(harness.NewOwner(t)),
		"buckets": []any{bucket("a", "OPERATING", 5000), bucket("b", "RESERVE", 5000)}}).Expect(t, 202).JSON(t)
	path := "/v1/treasury/accounts/" + account["accountId"].(string) + "/rules"
	body := map[string]any{"type": "REBALANCE_TO_TARGET"}
	var last map[string]any
	for range 48 {
		last = ten.Root.Post(path, body).Expect(t, 201).JSON(t)
	}
	var wg sync.WaitGroup
	statuses := make([]int, 5)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = ten.Root.Post(path, body).Status
		}()
	}
	wg.Wait()
	created, refused := 0, 0
	for _, s := range statuses {
		switch s {
		case 201:
			created++
		case 409:
			refused++
		}
	}
	if created != 2 || refused != 3 {
		t.Fatalf("parallel creates at the cap: %v, want two 201 and three 409", statuses)
	}
	ten.Root.Post(path, body).ExpectError(t, 409, "INVALID_STATE")
	ten.Root.Do("DELETE", "/v1/treasury/rules/"+last["ruleId"].(string), nil).Expect(t, 200)
	ten.Root.Post(path, body).Expect(t, 201)
}
