package cards

import (
	"net/http"
	"testing"

	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/test/harness"
)

// TestCards_PolicyDecidedByTheSpendGuard: a card's spend policy is one of the spend guard's
// steps. On a funding-account card (it spends the service balance) a policy blocking a
// merchant's address and capping the amount declines as documented, 201 DECLINED with
// POLICY_DENIED and the deciding policy pinned, holding nothing; within it the authorization
// holds the amount. An agent key on the tenant's card is refused by confinement, the step
// before the policy, so the authorization is not recorded at all.
func TestCards_PolicyDecidedByTheSpendGuard(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "20"}).Expect(t, http.StatusCreated)
	hid := ten.Root.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).
		Expect(t, http.StatusCreated).JSON(t)["cardholderId"].(string)
	id := ten.Root.Post("/v1/cards", map[string]any{"cardholderId": hid}).Expect(t, http.StatusCreated).JSON(t)["cardId"].(string)
	const blocked = "0x00000000000000000000000000000000000000bb"
	pol := createPolicy(t, ten.Root, map[string]any{"limits": map[string]any{"perTransactionUsd": "8"},
		"counterparties": map[string]any{"blocked": []string{blocked}}})
	attach(t, ten.Root, pol, "card", id)
	srv := serverWith(t, policy.ModeEnforce, nil)
	c := srv.Client(t).WithKey(ten.RootKey)
	at := func(c *harness.Client, amount string, counterparty any) *harness.Response {
		body := map[string]any{"amountUsd": amount, "mcc": "5411", "merchantName": "Corner Shop"}
		if counterparty != nil {
			body["counterparty"] = counterparty
		}
		return c.Post("/v1/sandbox/cards/"+id+"/authorizations", body)
	}

	for _, d := range []map[string]any{
		at(c, "2", blocked).Expect(t, http.StatusCreated).JSON(t), // the merchant the policy blocks
		at(c, "9", nil).Expect(t, http.StatusCreated).JSON(t),     // above the policy's 8 USD
	} {
		if d["status"] != "DECLINED" || declineReason(d) != "POLICY_DENIED" || d["policyId"] != pol ||
			d["policyDecisionId"] == nil || d["holdTransferId"] != nil {
			t.Fatalf("policy decline: %v", d)
		}
	}
	harness.ExpectServiceBalance(t, ten.Root, 20_000_000, 0)

	a := at(c, "8", nil).Expect(t, http.StatusCreated).JSON(t)
	if a["status"] != "APPROVED" || a["policyId"] != pol || a["holdTransferId"] == nil {
		t.Fatalf("within the policy: %v", a)
	}
	harness.ExpectServiceBalance(t, ten.Root, 12_000_000, 8_000_000)

	agentID := ten.Root.Post("/v1/agents", map[string]any{"name": "shopper"}).Expect(t, http.StatusCreated).JSON(t)["id"].(string)
	key := ten.Root.Post("/v1/agents/"+agentID+"/keys", map[string]any{"name": "agent key", "scopes": []string{"*"}}).
		Expect(t, http.StatusCreated).JSON(t)["key"].(string)
	e := at(srv.Client(t).WithKey(key), "9", nil).ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
	if d, _ := e["details"].(map[string]any); d["reason"] != "AGENT_WALLET_ONLY" {
		t.Fatalf("agent key: %v", e)
	}
	if n := ten.Root.Get("/v1/cards/"+id+"/authorizations").Expect(t, http.StatusOK).JSON(t)["total"]; n != float64(3) {
		t.Fatalf("authorizations recorded: %v, want the 3 the tenant's key asked for", n)
	}
}
