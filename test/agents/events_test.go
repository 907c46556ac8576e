package agents

import (
	"net/http"
	"testing"
)

// TestAgents_Events: an agent's changes each write one event in their transaction:
// agent.created, agent.limits_updated on every accepted PUT of its caps (two in a row are two
// events), agent.suspended and agent.reactivated once per real transition. A refused change
// writes none.
func TestAgents_Events(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	id := createAgent(t, ten.Root, "evented")["id"].(string)
	if created := ten.Root.OneEventOf(t, "agent.created", id); created["status"] != "ACTIVE" || created["name"] != "evented" {
		t.Fatalf("agent.created: %v", created)
	}

	path := "/v1/agents/" + id + "/limits"
	put(ten.Root, path, map[string]any{"dailyUsd": "10"}).Expect(t, http.StatusOK)
	put(ten.Root, path, map[string]any{"dailyUsd": nil, "weeklyUsd": "70.5"}).Expect(t, http.StatusOK)
	put(ten.Root, path, map[string]any{"dailyUsd": "0"}).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	put(other.Root, path, map[string]any{"dailyUsd": "5"}).ExpectError(t, http.StatusNotFound, "AGENT_NOT_FOUND")
	updates := ten.Root.EventsOf(t, "agent.limits_updated", id)
	if len(updates) != 2 {
		t.Fatalf("%d agent.limits_updated events, want 2: %v", len(updates), updates)
	}
	newest := updates[0]["data"].(map[string]any)
	oldest := updates[1]["data"].(map[string]any)
	if l := oldest["limits"].(map[string]any); l["dailyUsd"] != "10" || l["weeklyUsd"] != nil {
		t.Fatalf("first limits event: %v", oldest)
	}
	if l := newest["limits"].(map[string]any); l["dailyUsd"] != nil || l["weeklyUsd"] != "70.5" || newest["status"] != "ACTIVE" {
		t.Fatalf("second limits event: %v", newest)
	}

	for range 2 {
		ten.Root.Post("/v1/agents/"+id+"/suspend", nil).Expect(t, http.StatusOK)
		ten.Root.Post("/v1/agents/"+id+"/reactivate", nil).Expect(t, http.StatusOK)
	}
	ten.Root.Post("/v1/agents/"+id+"/reactivate", nil).Expect(t, http.StatusOK) // active already: no event
	if n, m := len(ten.Root.EventsOf(t, "agent.suspended", id)), len(ten.Root.EventsOf(t, "agent.reactivated", id)); n != 2 || m != 2 {
		t.Fatalf("suspended %d, reactivated %d events, want 2 each", n, m)
	}
	if all := ten.Root.EventsOf(t, "agent.*", id); len(all) != 7 {
		t.Fatalf("agent events: %d, want 7: %v", len(all), all)
	}
	if n := len(other.Root.EventsOf(t, "agent.*", id)); n != 0 {
		t.Fatalf("another tenant sees %d events of the agent", n)
	}
}
