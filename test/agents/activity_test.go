package agents

import (
	"net/http"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestAgents_Activity: the timeline merges the payments of the agent's wallet and the policy
// decisions about the agent and its wallet, newest first, sha-pinned, and pages with a cursor
// that neither repeats nor skips an item.
func TestAgents_Activity(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	id := createAgent(t, ten.Root, "timeline")["id"].(string)
	path := "/v1/agents/" + id + "/activity"
	if got := ten.Root.Get(path).Expect(t, 200).JSON(t); len(got["items"].([]any)) != 0 || got["nextCursor"] != nil {
		t.Fatalf("empty timeline %v", got)
	}
	walletID := agentWallet(t, ten, id, o, "")
	// A policy on the agent's wallet records a decision on each payment (log mode by default).
	pol := ten.Root.Post("/v1/policies", map[string]any{"name": "cap",
		"document": map[string]any{"schemaVersion": 1, "limits": map[string]any{"perTransactionUsd": "2"}}}).Expect(t, 201).JSON(t)
	ten.Root.Post("/v1/policies/"+pol["policyId"].(string)+"/attachments", map[string]any{"subjectType": "wallet", "subjectId": walletID}).Expect(t, 201)
	ten.Root.Post("/v1/payments", payBody(walletID, "1")).Expect(t, 201)
	ten.Root.Post("/v1/payments", payBody(walletID, "3")).Expect(t, 201)
	// A decision about the agent itself (an evaluation by subject).
	agentPol := ten.Root.Post("/v1/policies", map[string]any{"name": "agent", "document": map[string]any{"schemaVersion": 1}}).Expect(t, 201).JSON(t)
	ten.Root.Post("/v1/policies/"+agentPol["policyId"].(string)+"/attachments", map[string]any{"subjectType": "agent", "subjectId": id}).Expect(t, 201)
	ten.Root.Post("/v1/policies/evaluate", map[string]any{"subjectType": "agent", "subjectId": id, "amountUsd": "4"}).Expect(t, 200)
	// A decision about no subject, and another wallet's payment, stay out.
	ten.Root.Post("/v1/policies/evaluate", map[string]any{"policyId": agentPol["policyId"], "amountUsd": "4"}).Expect(t, 200)
	other := agentWallet(t, ten, createAgent(t, ten.Root, "other")["id"].(string), o, "")
	ten.Root.Post("/v1/payments", payBody(other, "1")).Expect(t, 201)

	all := ten.Root.Get(path).Expect(t, 200).JSON(t)
	items := all["items"].([]any)
	if all["nextCursor"] != nil || len(items) != 5 {
		t.Fatalf("timeline of %d items: %v", len(items), all)
	}
	harness.NewestFirst(t, items, "occurredAt")
	kinds := map[string]int{}
	for _, raw := range items {
		it := raw.(map[string]any)
		kinds[it["type"].(string)]++
		if it["type"] == "policy_decision" && len(it["sha256"].(string)) != 64 {
			t.Fatalf("decision without sha256: %v", it)
		}
	}
	if kinds["payment"] != 2 || kinds["policy_decision"] != 3 {
		t.Fatalf("kinds %v: %v", kinds, items)
	}
	newest := items[0].(map[string]any)
	if newest["type"] != "policy_decision" || newest["referenceId"] != nil {
		t.Fatalf("the evaluation is the newest item: %v", newest)
	}

	// Page by two: the same items in the same order, then the end.
	expectPagesInOrder(t, ten.Root, path, 2, items)
	ten.Root.Get(path+"?cursor=nope").ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	ten.Root.Get(path+"?limit=0").ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	ten.Root.Get(path+"?limit=101").ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
}
