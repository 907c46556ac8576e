package agents

import (
	"net/http"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestAgents_CardIssueOnWalletWithAgentID: SPEC's agentId on POST /v1/wallets/{walletId}/cards
// binds the card to the agent by the rules of POST /v1/agents/{id}/cards: on the agent's own
// wallet only, caps copied from the agent, one card per agent, both scopes needed; an unknown
// or another tenant's agent is not found, and every refusal issues nothing.
func TestAgents_CardIssueOnWalletWithAgentID(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "wallet card")["id"].(string)
	put(ten.Root, "/v1/agents/"+id+"/limits", map[string]any{"perTransactionUsd": "5", "dailyUsd": "10"}).Expect(t, http.StatusOK)
	walletID := agentWallet(t, ten, id, harness.NewOwner(t), "")
	path := "/v1/wallets/" + walletID + "/cards"

	other := createAgent(t, ten.Root, "other")["id"].(string)
	otherWallet := agentWallet(t, ten, other, harness.NewOwner(t), "")
	// Another agent's wallet is not this agent's: its card would spend from the wrong Safe.
	if m := ten.Root.Post("/v1/wallets/"+otherWallet+"/cards", map[string]any{"agentId": id}).
		ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED"); harness.Field(m, "agentId") == "" {
		t.Fatalf("wallet mismatch does not name agentId: %v", m)
	}
	if m := ten.Root.Post(path, map[string]any{"agentId": ""}).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED"); harness.Field(m, "agentId") == "" {
		t.Fatalf("empty agentId: %v", m)
	}
	ten.Root.Post(path, map[string]any{"agentId": "agt_06h1ymvyv1s8faeg1ekrjqegdr"}).ExpectError(t, http.StatusNotFound, "AGENT_NOT_FOUND")
	foreign := env().NewTenant(t)
	foreignAgent := createAgent(t, foreign.Root, "foreign")["id"].(string)
	ten.Root.Post(path, map[string]any{"agentId": foreignAgent}).ExpectError(t, http.StatusNotFound, "AGENT_NOT_FOUND")
	cardsOnly := env().Client(t).WithKey(env().NewKey(t, ten.Root, map[string]any{"name": "cards only", "scopes": []string{"cards:issue", "wallets:read"}}))
	cardsOnly.Post(path, map[string]any{"agentId": id}).ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
	if got := ten.Root.Get("/v1/cards").Expect(t, 200).JSON(t); got["total"] != float64(0) {
		t.Fatalf("a refused issue made a card: %v", got)
	}

	c := ten.Root.Post(path, map[string]any{"agentId": id, "monthlyUsd": "100"}).Expect(t, http.StatusCreated).JSON(t)
	cardID := c["cardId"].(string)
	if c["agentId"] != id || c["walletId"] != walletID {
		t.Fatalf("card %v, want agent %s on wallet %s", c, id, walletID)
	}
	l := cardLimits(t, ten.Root, cardID)
	if l["perTransactionUsd"] != "5" || l["dailyUsd"] != "10" || l["monthlyUsd"] != "100" {
		t.Fatalf("limits %v: the agent's caps are copied, the body's applied over them", l)
	}
	if got := ten.Root.Get("/v1/cards/"+cardID).Expect(t, 200).JSON(t); got["agentId"] != id {
		t.Fatalf("card read back %v", got)
	}
	// The agent has its card now, whichever route asks for another.
	ten.Root.Post(path, map[string]any{"agentId": id}).ExpectError(t, http.StatusConflict, "AGENT_CARD_EXISTS")
	ten.Root.Post("/v1/agents/"+id+"/cards", map[string]any{}).ExpectError(t, http.StatusConflict, "AGENT_CARD_EXISTS")
	// Its authorizations run against the agent's windows: above the agent's 5 USD per transaction.
	if a := cardAuthorize(t, ten.Root, cardID, "6"); a["status"] != "DECLINED" {
		t.Fatalf("authorization above the agent's cap: %v", a)
	}
}
