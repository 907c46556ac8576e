package faults

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
)

// payoutDependency is the wallet_a provider's entry in /v1/status.
func payoutDependency(t *testing.T, c *harness.Client) (status map[string]any, dep map[string]any) {
	t.Helper()
	status = c.Get("/v1/status").Expect(t, 200).JSON(t)
	for _, d := range status["dependencies"].([]any) {
		if m := d.(map[string]any); m["name"] == "payout:wallet_a" {
			return status, m
		}
	}
	t.Fatalf("no payout:wallet_a dependency in %v", status["dependencies"])
	return nil, nil
}

// TestProviderFaults_OutageDegradesOnlyThePayouts: while a payout provider does not answer
// (three submissions in a row fail), /v1/status reports it unavailable with a fixed sentence,
// corridor_dependency_up shows it down, /readyz stays 200 and the ledger, keys and internal
// routes keep serving; the confirmed payments wait FUNDS_LOCKED with their money locked once.
// When the provider answers again the dependency is ok and every payment is DELIVERED once,
// on its confirmed quote.
func TestProviderFaults_OutageDegradesOnlyThePayouts(t *testing.T) {
	pairs := make([]offrampPair, 3)
	ids := make([]string, 3)
	for i := range pairs {
		pairs[i] = newOfframpPair(t, "20")
		ids[i] = pairs[i].create(t, "10", fmt.Sprintf("outage-%d-%s", i, pairs[i].sender.ID))
		flaky.fail(ids[i], -1, 0)
	}
	for i, p := range pairs {
		p.confirm(t, ids[i])
	}
	observer := pairs[0].sender.Root
	harness.Eventually(t, "the provider reported unavailable", func() bool {
		_, dep := payoutDependency(t, observer)
		return dep["status"] == "unavailable"
	})
	status, dep := payoutDependency(t, observer)
	if status["status"] != "degraded" || dep["kind"] != "payout_provider" || dep["problem"] == nil ||
		strings.Contains(fmt.Sprint(dep["problem"]), "503") {
		t.Fatalf("during the outage: %v", status)
	}
	if !strings.Contains(harness.Shared().Metrics(t), `corridor_dependency_up{dependency="payout:wallet_a",kind="payout_provider"} 0`) {
		t.Fatal("corridor_dependency_up does not show the provider down")
	}
	harness.Shared().Client(t).Get("/readyz").Expect(t, 200)
	for i, p := range pairs {
		if s := p.status(t, ids[i]); s != "FUNDS_LOCKED" {
			t.Fatalf("payment %s is %s during the outage, want FUNDS_LOCKED", ids[i], s)
		}
		harness.ExpectServiceBalance(t, p.sender.Root, 10*usd, 0) // the 10 locked left the available balance once
	}
	// Everything that does not need the provider serves.
	observer.Get("/v1/ledger/accounts").Expect(t, 200)
	observer.Post("/v1/api-keys", map[string]any{"name": "during-outage"}).Expect(t, 201)
	observer.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "1"}).Expect(t, 201)

	for _, id := range ids {
		flaky.heal(id)
	}
	// The submissions retry on the job queue's backoff (1 s, then 16 s): a bound above the
	// harness's minute, so a slow machine that misses the second retry still sees the third.
	deadline := time.Now().Add(3 * time.Minute)
	for i, p := range pairs {
		for p.status(t, ids[i]) != "DELIVERED" {
			if time.Now().After(deadline) {
				t.Fatalf("payment %s is %s after the provider recovered", ids[i], p.status(t, ids[i]))
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if _, dep := payoutDependency(t, observer); dep["status"] != "ok" || dep["problem"] != nil {
		t.Fatalf("after the outage: %v", dep)
	}
	for i, p := range pairs {
		if n, _ := providerPayouts(t, ids[i]); n != 1 {
			t.Fatalf("the provider holds %d payouts for %s, want 1", n, ids[i])
		}
		if confirmed := p.sender.Root.Get("/v1/offramp/payments/"+ids[i]).Expect(t, 200).JSON(t); confirmed["requoteReason"] != nil {
			t.Fatalf("payment %s was requoted: %v", ids[i], confirmed)
		}
	}
	harness.ExpectServiceBalance(t, observer, 11*usd, 0)
	expectInvariants(t)
}
