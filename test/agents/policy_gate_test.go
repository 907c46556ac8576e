package agents

import (
	"net/http"
	"testing"

	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// policyFor creates a policy of limits and attaches it to the subject.
func policyFor(t *testing.T, c *harness.Client, limits map[string]any, subjectType, subjectID string) string {
	t.Helper()
	id := c.Post("/v1/policies", map[string]any{"name": subjectType + " policy",
		"document": map[string]any{"schemaVersion": 1, "limits": limits}}).Expect(t, http.StatusCreated).JSON(t)["policyId"].(string)
	c.Post("/v1/policies/"+id+"/attachments", map[string]any{"subjectType": subjectType, "subjectId": subjectID}).Expect(t, http.StatusCreated)
	return id
}

// TestAgents_PolicyGatesPaymentsAndCards: a policy attached to an agent is evaluated on the
// agent's Safe payments and card authorizations (enforce mode), together with the wallet's and
// the card's; the most restrictive wins, and each decline names the policy that made it.
func TestAgents_PolicyGatesPaymentsAndCards(t *testing.T) {
	t.Parallel()
	srv := harness.NewServer(t, func(c *wiring.Config) { c.PolicyEnforcement = policy.ModeEnforce })
	ten := env().NewTenant(t)
	c := srv.Client(t).WithKey(ten.RootKey)
	id := createAgent(t, ten.Root, "gated")["id"].(string)
	walletID := agentWallet(t, ten, id, harness.NewOwner(t), "20")
	awaitMirrored(t, walletID, 20_000_000) // card holds are placed on the ledger's mirror of the Safe
	cardID := ten.Root.Post("/v1/agents/"+id+"/cards", map[string]any{}).Expect(t, http.StatusCreated).JSON(t)["cardId"].(string)
	agentPolicy := policyFor(t, ten.Root, map[string]any{"perTransactionUsd": "2"}, "agent", id)

	// Payments from the agent's wallet: above the agent's 2 USD, declined by its policy.
	denied := c.Post("/v1/payments", payBody(walletID, "3")).ExpectError(t, http.StatusForbidden, "POLICY_DENIED")
	if denied["details"].(map[string]any)["policyId"] != agentPolicy {
		t.Fatalf("payment decline: %v", denied)
	}
	c.Post("/v1/payments", payBody(walletID, "1.5")).Expect(t, http.StatusCreated)
	// The agent's card: above 2 USD declined by the agent's policy, within it approved.
	if d := cardAuthorize(t, c, cardID, "3"); d["status"] != "DECLINED" || d["declineReason"] != "POLICY_DENIED" || d["policyId"] != agentPolicy {
		t.Fatalf("card authorization above the agent's policy: %v", d)
	}
	if a := cardAuthorize(t, c, cardID, "1"); a["status"] != "APPROVED" {
		t.Fatalf("card authorization within the agent's policy: %v", a)
	}

	// A stricter wallet policy rules over the agent's looser one, for payments and cards.
	walletPolicy := policyFor(t, ten.Root, map[string]any{"perTransactionUsd": "0.5"}, "wallet", walletID)
	if d := c.Post("/v1/payments", payBody(walletID, "1")).ExpectError(t, http.StatusForbidden, "POLICY_DENIED"); d["details"].(map[string]any)["policyId"] != walletPolicy {
		t.Fatalf("payment under the stricter wallet policy: %v", d)
	}
	if d := cardAuthorize(t, c, cardID, "1"); d["declineReason"] != "POLICY_DENIED" || d["policyId"] != walletPolicy {
		t.Fatalf("card under the stricter wallet policy: %v", d)
	}
	// And the agent's stricter policy rules over a looser card policy.
	policyFor(t, ten.Root, map[string]any{"perTransactionUsd": "100"}, "card", cardID)
	if d := cardAuthorize(t, c, cardID, "3"); d["declineReason"] != "POLICY_DENIED" || (d["policyId"] != agentPolicy && d["policyId"] != walletPolicy) {
		t.Fatalf("a looser card policy lifted the agent's: %v", d)
	}
}
