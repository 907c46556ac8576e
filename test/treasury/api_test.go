package treasury

import (
	"strings"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func accountBody(o owner, buckets ...map[string]any) map[string]any {
	return map[string]any{"name": "refused", "owners": ownersBody(o), "buckets": buckets}
}

// TestTreasury_AccountValidation: nine buckets, targets that do not sum to 10000, no buckets,
// an unknown kind, bad owners: VALIDATION_FAILED naming the field, and nothing created.
func TestTreasury_AccountValidation(t *testing.T) {
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	nine := make([]map[string]any, 9)
	for i := range nine {
		nine[i] = bucket("b"+string(rune('a'+i)), "OPERATING", 0)
	}
	nine[0]["targetBps"] = 10000
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"nine buckets", accountBody(o, nine...), "buckets"},
		{"targets sum to 9000", accountBody(o, bucket("a", "OPERATING", 5000), bucket("b", "RESERVE", 4000)), "buckets"},
		{"targets sum to 11000", accountBody(o, bucket("a", "OPERATING", 6000), bucket("b", "RESERVE", 5000)), "buckets"},
		{"no buckets", accountBody(o), "buckets"},
		{"unknown kind", accountBody(o, bucket("a", "SAVINGS", 10000)), "buckets[0].kind"},
		{"negative target", accountBody(o, bucket("a", "OPERATING", -1), bucket("b", "RESERVE", 10001)), "buckets[0].targetBps"},
		{"apy above 100%", accountBody(o, bucket("a", "YIELD", 10000, 10001)), "buckets[0].apyBps"},
		{"duplicate names", accountBody(o, bucket("a", "OPERATING", 5000), bucket("A", "RESERVE", 5000)), "buckets[1].name"},
		{"missing target", accountBody(o, map[string]any{"name": "a", "kind": "OPERATING"}), "buckets[0].targetBps"},
		{"no owners", map[string]any{"name": "x", "owners": []any{}, "buckets": []any{bucket("a", "OPERATING", 10000)}}, "owners"},
		{"threshold above owners", map[string]any{"name": "x", "owners": ownersBody(o), "threshold": 2, "buckets": []any{bucket("a", "OPERATING", 10000)}}, "threshold"},
		{"live chain", map[string]any{"name": "x", "owners": ownersBody(o), "chainId": 8453, "buckets": []any{bucket("a", "OPERATING", 10000)}}, "chainId"},
		{"no name", map[string]any{"owners": ownersBody(o), "buckets": []any{bucket("a", "OPERATING", 10000)}}, "name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := ten.Root.Post("/v1/treasury/accounts", tc.body).ExpectError(t, 400, "VALIDATION_FAILED")
			if !strings.Contains(fields(t, e), tc.field+":") {
				t.Fatalf("fields %s do not name %s", fields(t, e), tc.field)
			}
		})
	}
	if got := ten.Root.Get("/v1/treasury/accounts").Expect(t, 200).JSON(t); got["total"] != float64(0) {
		t.Fatalf("refused requests created accounts: %v", got)
	}
	if got := ten.Root.Get("/v1/wallets").Expect(t, 200).JSON(t); got["total"] != float64(0) {
		t.Fatalf("refused requests created wallets: %v", got)
	}
}

// TestTreasury_IdempotentCreate: one Idempotency-Key, two requests: one account, one set of
// bucket Safes, the same answer.
func TestTreasury_IdempotentCreate(t *testing.T) {
	ten := env().NewTenant(t)
	c := ten.Root.With("Idempotency-Key", "treasury-create-1")
	body := map[string]any{"name": "ops", "owners": ownersBody(harness.NewOwner(t)),
		"buckets": []any{bucket("Operating", "OPERATING", 7000), bucket("Reserve", "RESERVE", 3000)}}
	first := c.Post("/v1/treasury/accounts", body).Expect(t, 202)
	again := c.Post("/v1/treasury/accounts", body).Expect(t, 202)
	if string(first.Body) != string(again.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("not replayed: %s / %s", first.Body, again.Body)
	}
	created := first.JSON(t)
	if created["totalUsd"] != nil || bucketAt(created, 0)["balanceUsd"] != nil || bucketAt(created, 0)["driftUsd"] != nil {
		t.Errorf("a new account's balances are unknown until read, never zero: %v", created)
	}
	if got := ten.Root.Get("/v1/treasury/accounts").Expect(t, 200).JSON(t); got["total"] != float64(1) {
		t.Fatalf("accounts: %v", got)
	}
	if got := ten.Root.Get("/v1/wallets").Expect(t, 200).JSON(t); got["total"] != float64(2) {
		t.Fatalf("wallets: %v", got)
	}
}

// TestTreasury_OtherTenantAndLive: another tenant's account and rule answer 404; a LIVE key
// answers SANDBOX_ONLY; an agent-less read key cannot write.
func TestTreasury_OtherTenantAndLive(t *testing.T) {
	owner, other := env().NewTenant(t), env().NewTenant(t)
	account := owner.Root.Post("/v1/treasury/accounts", map[string]any{"name": "mine", "owners": ownersBody(harness.NewOwner(t)),
		"buckets": []any{bucket("a", "OPERATING", 5000), bucket("b", "RESERVE", 5000)}}).Expect(t, 202).JSON(t)
	id := account["accountId"].(string)
	rule := owner.Root.Post("/v1/treasury/accounts/"+id+"/rules", map[string]any{"type": "REBALANCE_TO_TARGET"}).Expect(t, 201).JSON(t)
	other.Root.Get("/v1/treasury/accounts/"+id).ExpectError(t, 404, "TREASURY_ACCOUNT_NOT_FOUND")
	other.Root.Get("/v1/treasury/accounts/"+id+"/rules").ExpectError(t, 404, "TREASURY_ACCOUNT_NOT_FOUND")
	other.Root.Get("/v1/treasury/accounts/"+id+"/sweeps").ExpectError(t, 404, "TREASURY_ACCOUNT_NOT_FOUND")
	other.Root.Post("/v1/treasury/accounts/"+id+"/rules", map[string]any{"type": "REBALANCE_TO_TARGET"}).ExpectError(t, 404, "TREASURY_ACCOUNT_NOT_FOUND")
	other.Root.Do("PATCH", "/v1/treasury/rules/"+rule["ruleId"].(string), map[string]any{"enabled": false}).ExpectError(t, 404, "TREASURY_RULE_NOT_FOUND")
	other.Root.Do("DELETE", "/v1/treasury/rules/"+rule["ruleId"].(string), nil).ExpectError(t, 404, "TREASURY_RULE_NOT_FOUND")
	other.Root.Post("/v1/sandbox/treasury/accounts/"+id+"/advance", map[string]any{"days": 1}).ExpectError(t, 404, "TREASURY_ACCOUNT_NOT_FOUND")

	live := env().Client(t).WithKey(env().NewKey(t, owner.Session, map[string]any{"name": "live", "scopes": []string{"*"}, "environment": "live"}))
	live.Get("/v1/treasury/accounts").ExpectError(t, 403, "SANDBOX_ONLY")
	live.Get("/v1/treasury/accounts/"+id).ExpectError(t, 403, "SANDBOX_ONLY")

	reader := env().Client(t).WithKey(env().NewKey(t, owner.Session, map[string]any{"name": "reader", "scopes": []string{"treasury:read"}}))
	reader.Get("/v1/treasury/accounts/"+id).Expect(t, 200)
	reader.Post("/v1/treasury/accounts/"+id+"/rules", map[string]any{"type": "REBALANCE_TO_TARGET"}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
}

// TestTreasury_ClockHelperIsBounded: the sandbox clock helper moves an account at most 36600
// days (a hundred years of 366) ahead in all; each advance within the bound moves the
// simulated clock forward, and one past it is 400 VALIDATION_FAILED on days and changes
// nothing. Unbounded, repeated advances ran the offset past what an instant holds (106751
// days) and the account's simulated clock wrapped into the past, where its rules were due to
// the database but never to the runner.
func TestTreasury_ClockHelperIsBounded(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	account := ten.Root.Post("/v1/treasury/accounts", map[string]any{"name": "clock", "owners": ownersBody(o),
		"buckets": []map[string]any{bucket("a", "OPERATING", 5000), bucket("b", "RESERVE", 5000)}}).Expect(t, 202).JSON(t)
	path := "/v1/sandbox/treasury/accounts/" + account["accountId"].(string) + "/advance"
	last := ""
	for i := 1; i <= 100; i++ {
		adv := ten.Root.Post(path, map[string]any{"days": 366}).Expect(t, 200).JSON(t)
		now, _ := adv["simulatedNow"].(string)
		if adv["clockOffsetDays"] != float64(366*i) || now <= last {
			t.Fatalf("advance %d: %v after %s", i, adv, last)
		}
		last = now
	}
	refused := ten.Root.Post(path, map[string]any{"days": 1}).ExpectError(t, 400, "VALIDATION_FAILED")
	if harness.Field(refused, "days") == "" {
		t.Fatalf("the refusal names no days: %v", refused)
	}
	got := ten.Root.Get("/v1/treasury/accounts/"+account["accountId"].(string)).Expect(t, 200).JSON(t)
	if got["clockOffsetDays"] != float64(36600) {
		t.Fatalf("clockOffsetDays %v after the refusal, want 36600", got["clockOffsetDays"])
	}
}
