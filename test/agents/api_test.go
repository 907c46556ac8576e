package agents

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core/timestamp"
	"github.com/corridorhq/corridor/test/harness"
)

func TestAgents_CreateListGet(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	a := createAgent(t, ten.Root, "  invoice payer  ")
	id := a["id"].(string)
	if !strings.HasPrefix(id, "agt_") || a["name"] != "invoice payer" || a["status"] != "ACTIVE" || a["walletId"] != nil {
		t.Fatalf("created %v", a)
	}
	limits := a["limits"].(map[string]any)
	for _, f := range []string{"perTransactionUsd", "dailyUsd", "weeklyUsd", "monthlyUsd"} {
		if v, ok := limits[f]; !ok || v != nil {
			t.Fatalf("a new agent has limit %s = %v", f, v)
		}
	}
	createAgent(t, ten.Root, "second")
	if got := ten.Root.Get("/v1/agents/"+id).Expect(t, 200).JSON(t); got["id"] != id {
		t.Fatalf("get %v", got)
	}
	list := ten.Root.Get("/v1/agents?take=1").Expect(t, 200).JSON(t)
	if list["total"] != float64(2) || len(list["agents"].([]any)) != 1 || list["agents"].([]any)[0].(map[string]any)["id"] != id {
		t.Fatalf("list %v", list)
	}
	if got := ten.Root.Get("/v1/agents?skip=1").Expect(t, 200).JSON(t); len(got["agents"].([]any)) != 1 {
		t.Fatalf("second page %v", got)
	}

	harness.Field(ten.Root.Post("/v1/agents", map[string]any{"name": " "}).ExpectError(t, 400, "VALIDATION_FAILED"), "name")
	ten.Root.Post("/v1/agents", map[string]any{"name": strings.Repeat("x", 201)}).ExpectError(t, 400, "VALIDATION_FAILED")
	ten.Root.Get("/v1/agents/agt_nope").ExpectError(t, 404, "AGENT_NOT_FOUND")

	// Another tenant's agent is not found, and its list does not show it.
	other := env().NewTenant(t)
	other.Root.Get("/v1/agents/"+id).ExpectError(t, 404, "AGENT_NOT_FOUND")
	other.Root.Post("/v1/agents/"+id+"/suspend", nil).ExpectError(t, 404, "AGENT_NOT_FOUND")
	put(other.Root, "/v1/agents/"+id+"/limits", map[string]any{"dailyUsd": "1"}).ExpectError(t, 404, "AGENT_NOT_FOUND")
	other.Root.Post("/v1/agents/"+id+"/keys", map[string]any{"name": "x", "scopes": []string{"agents:read"}}).ExpectError(t, 404, "AGENT_NOT_FOUND")
	other.Root.Get("/v1/agents/"+id+"/activity").ExpectError(t, 404, "AGENT_NOT_FOUND")
	if got := other.Root.Get("/v1/agents").Expect(t, 200).JSON(t); got["total"] != float64(0) {
		t.Fatalf("other tenant lists %v", got)
	}
	if got := ten.Root.Get("/v1/agents/"+id).Expect(t, 200).JSON(t); got["limits"].(map[string]any)["dailyUsd"] != nil {
		t.Fatalf("another tenant changed the agent: %v", got)
	}
}

// TestAgents_StateMachine walks the agent state table row by row: suspend and reactivate each
// from both states; the no-op rows answer the agent unchanged.
func TestAgents_StateMachine(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "state")["id"].(string)
	rows := []struct{ action, want string }{
		{"reactivate", "ACTIVE"}, // ACTIVE --reactivate--> ACTIVE (no-op)
		{"suspend", "SUSPENDED"}, // ACTIVE --suspend--> SUSPENDED
		{"suspend", "SUSPENDED"}, // SUSPENDED --suspend--> SUSPENDED (no-op)
		{"reactivate", "ACTIVE"}, // SUSPENDED --reactivate--> ACTIVE
	}
	var lastUpdated any
	for i, r := range rows {
		got := ten.Root.Post("/v1/agents/"+id+"/"+r.action, nil).Expect(t, 200).JSON(t)
		if got["status"] != r.want {
			t.Fatalf("row %d: %s → %v, want %s", i, r.action, got["status"], r.want)
		}
		if i == 2 && got["updatedAt"] != lastUpdated {
			t.Fatalf("suspending a suspended agent changed it: %v then %v", lastUpdated, got["updatedAt"])
		}
		lastUpdated = got["updatedAt"]
	}
	ten.Root.Post("/v1/agents/agt_nope/suspend", nil).ExpectError(t, 404, "AGENT_NOT_FOUND")
}

// TestAgents_KeysStripForbiddenScopes: the six scopes an agent may not hold (SPEC's four, and
// members:manage and twofactor:manage, docs/decisions/tenancy.md) are dropped
// silently, on every key of the agent, "*" included; an agent key cannot mint keys, may read
// and evaluate policies, and its principal is the agent.
func TestAgents_KeysStripForbiddenScopes(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "keys")["id"].(string)
	forbidden := []string{"agents:manage", "keys:manage", "policies:write", "treasury:write", "members:manage", "twofactor:manage"}
	asked := append([]string{"payments:create", "policies:read", "policies:evaluate", "agents:read"}, forbidden...)
	for round := 0; round < 2; round++ { // a second key for the same agent: the same stripping
		k := agentKey(t, ten.Root, id, asked...)
		got := scopesOf(k)
		for _, f := range forbidden {
			if got[f] {
				t.Fatalf("round %d: key holds %s: %v", round, f, k["scopes"])
			}
		}
		if len(got) != 4 || !got["payments:create"] || k["agentId"] != id || k["key"] == nil {
			t.Fatalf("round %d: key %v", round, k)
		}
	}
	root := agentKey(t, ten.Root, id, "*")
	if got := scopesOf(root); got["*"] || got["keys:manage"] || got["agents:manage"] || !got["wallets:write"] {
		t.Fatalf("* became %v", root["scopes"])
	}
	// The agent key cannot mint a key (it holds no keys:manage), nor mint another agent key.
	agentClient := env().Client(t).WithKey(root["key"].(string))
	agentClient.Post("/v1/api-keys", map[string]any{"name": "escalate", "scopes": []string{"*"}}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	agentClient.Post("/v1/agents/"+id+"/keys", map[string]any{"name": "escalate", "scopes": []string{"*"}}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	agentClient.Post("/v1/policies", map[string]any{"name": "p", "document": map[string]any{"schemaVersion": 1}}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	// Agent keys may read and evaluate policies.
	pol := ten.Root.Post("/v1/policies", map[string]any{"name": "cap",
		"document": map[string]any{"schemaVersion": 1, "limits": map[string]any{"perTransactionUsd": "5"}}}).Expect(t, 201).JSON(t)
	agentClient.Get("/v1/policies").Expect(t, 200)
	verdict := agentClient.Post("/v1/policies/evaluate", map[string]any{"policyId": pol["policyId"], "amountUsd": "6"}).Expect(t, 200).JSON(t)
	if verdict["allow"] != false {
		t.Fatalf("evaluate %v", verdict)
	}
	// The key list shows whose key it is; the plaintext is shown once.
	keys := ten.Root.Get("/v1/api-keys").Expect(t, 200).JSON(t)["apiKeys"].([]any)
	agentKeys := 0
	for _, k := range keys {
		if k.(map[string]any)["agentId"] == id {
			agentKeys++
		}
	}
	if agentKeys != 3 {
		t.Fatalf("%d agent keys listed", agentKeys)
	}

	// A caller may not grant an agent a scope it does not hold itself.
	manager := env().Client(t).WithKey(env().NewKey(t, ten.Root, map[string]any{"name": "manager", "scopes": []string{"agents:manage"}}))
	manager.Post("/v1/agents/"+id+"/keys", map[string]any{"name": "x", "scopes": []string{"payments:create"}}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	if k := agentKey(t, manager, id, "agents:manage"); len(k["scopes"].([]any)) != 0 {
		t.Fatalf("a key of only forbidden scopes holds %v", k["scopes"])
	}

	for field, body := range map[string]map[string]any{
		"scopes[0]": {"name": "x", "scopes": []string{"nope:read"}},
		"scopes":    {"name": "x", "scopes": []string{}},
		"name":      {"name": "", "scopes": []string{"agents:read"}},
		"expiresAt": {"name": "x", "scopes": []string{"agents:read"}, "expiresAt": "tomorrow"},
	} {
		if m := ten.Root.Post("/v1/agents/"+id+"/keys", body).ExpectError(t, 400, "VALIDATION_FAILED"); harness.Field(m, field) == "" {
			t.Fatalf("details.fields has no %q: %v", field, m["details"])
		}
	}

	// An expiry is kept in UTC to the microsecond, whatever offset the caller wrote it in.
	exp := time.Now().Add(48 * time.Hour).In(time.FixedZone("UTC+2", 2*3600)).Truncate(time.Second)
	k := ten.Root.Post("/v1/agents/"+id+"/keys", map[string]any{"name": "expiring", "scopes": []string{"agents:read"},
		"expiresAt": exp.Format(time.RFC3339)}).Expect(t, 201).JSON(t)
	if k["expiresAt"] != timestamp.Format(exp) {
		t.Fatalf("expiresAt %v, want %s", k["expiresAt"], timestamp.Format(exp))
	}
}

// TestAgents_SuspendedKeyDeclined: a suspended agent's key is declined at authentication on
// its next request, 403 on ordinary routes and 409 on wallet provisioning; it works again
// after reactivate.
func TestAgents_SuspendedKeyDeclined(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "suspend")["id"].(string)
	key := env().Client(t).WithKey(agentKey(t, ten.Root, id, "agents:read", "wallets:write")["key"].(string))
	key.Get("/v1/agents/"+id).Expect(t, 200)
	ten.Root.Post("/v1/agents/"+id+"/suspend", nil).Expect(t, 200)
	key.Get("/v1/agents/"+id).ExpectError(t, 403, "AGENT_SUSPENDED")
	key.Post("/v1/agents/"+id+"/wallet", map[string]any{"owners": []map[string]any{}}).ExpectError(t, 409, "AGENT_SUSPENDED")
	key.Get("/v1/capabilities").ExpectError(t, 403, "AGENT_SUSPENDED")
	ten.Root.Get("/v1/agents/"+id).Expect(t, 200) // a tenant key still works
	ten.Root.Post("/v1/agents/"+id+"/reactivate", nil).Expect(t, 200)
	key.Get("/v1/agents/"+id).Expect(t, 200)
}

// TestAgents_Limits: only sent fields change, null clears, zero, negative and malformed caps
// are VALIDATION_FAILED naming the field, and a body with one bad field changes nothing.
func TestAgents_Limits(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "limits")["id"].(string)
	path := "/v1/agents/" + id + "/limits"
	expect := func(got map[string]any, want map[string]any) {
		t.Helper()
		for f, v := range want {
			if got[f] != v {
				t.Fatalf("%s = %v, want %v (%v)", f, got[f], v, got)
			}
		}
	}
	none := map[string]any{"perTransactionUsd": nil, "dailyUsd": nil, "weeklyUsd": nil, "monthlyUsd": nil}
	expect(ten.Root.Get(path).Expect(t, 200).JSON(t), none)
	expect(put(ten.Root, path, map[string]any{"dailyUsd": "100", "perTransactionUsd": "12.50"}).Expect(t, 200).JSON(t),
		map[string]any{"dailyUsd": "100", "perTransactionUsd": "12.5", "weeklyUsd": nil, "monthlyUsd": nil})
	expect(put(ten.Root, path, map[string]any{"weeklyUsd": "0.000001"}).Expect(t, 200).JSON(t),
		map[string]any{"dailyUsd": "100", "perTransactionUsd": "12.5", "weeklyUsd": "0.000001"})
	expect(put(ten.Root, path, `{"dailyUsd": null}`).Expect(t, 200).JSON(t),
		map[string]any{"dailyUsd": nil, "perTransactionUsd": "12.5", "weeklyUsd": "0.000001"})
	expect(put(ten.Root, path, map[string]any{}).Expect(t, 200).JSON(t), map[string]any{"perTransactionUsd": "12.5"})

	for _, bad := range []struct {
		body  string
		field string
	}{
		{`{"dailyUsd": "0"}`, "dailyUsd"},
		{`{"monthlyUsd": "0.000000"}`, "monthlyUsd"},
		{`{"weeklyUsd": "-5"}`, "weeklyUsd"},
		{`{"perTransactionUsd": "1e3"}`, "perTransactionUsd"},
		{`{"perTransactionUsd": "1.0000001"}`, "perTransactionUsd"},
		{`{"dailyUsd": 5}`, "dailyUsd"},
		{`{"yearlyUsd": "5"}`, "yearlyUsd"},
		{`{"monthlyUsd": "500", "dailyUsd": "0"}`, "dailyUsd"},
	} {
		harness.Field(put(ten.Root, path, bad.body).ExpectError(t, 400, "VALIDATION_FAILED"), bad.field)
	}
	expect(ten.Root.Get(path).Expect(t, 200).JSON(t),
		map[string]any{"dailyUsd": nil, "perTransactionUsd": "12.5", "weeklyUsd": "0.000001", "monthlyUsd": nil})
	if got := ten.Root.Get("/v1/agents/"+id).Expect(t, 200).JSON(t); got["limits"].(map[string]any)["perTransactionUsd"] != "12.5" {
		t.Fatalf("agent %v", got)
	}
	// Reading needs agents:read; writing agents:manage.
	reader := env().Client(t).WithKey(env().NewKey(t, ten.Root, map[string]any{"name": "r", "scopes": []string{"agents:read"}}))
	reader.Get(path).Expect(t, 200)
	put(reader, path, map[string]any{"dailyUsd": "1"}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
}

// TestAgents_FeatureSandboxOnly: features.agents is true in the sandbox (anonymous callers
// and TEST keys) and false for LIVE keys, whose agent card issuance is SANDBOX_ONLY (and whose
// environment has no chain here: wallets false too, policies still true).
func TestAgents_FeatureSandboxOnly(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "cards")["id"].(string)
	for name, c := range map[string]*harness.Client{"anonymous": env().Client(t), "TEST key": ten.Root} {
		if caps := c.Get("/v1/capabilities").Expect(t, 200).JSON(t)["features"].(map[string]any); caps["agents"] != true {
			t.Fatalf("%s: features.agents = %v", name, caps["agents"])
		}
	}
	live := ten.Session.Post("/v1/api-keys", map[string]any{"name": "live", "environment": "live", "scopes": []string{"*"}}).Expect(t, 201).JSON(t)
	liveKey := env().Client(t).WithKey(live["key"].(string))
	caps := liveKey.Get("/v1/capabilities").Expect(t, 200).JSON(t)
	if f := caps["features"].(map[string]any); caps["environment"] != "LIVE" || f["agents"] != false || f["wallets"] != false || f["policies"] != true {
		t.Fatalf("LIVE capabilities %v", caps)
	}
	// LIVE reports agents (and cards) false, so their routes refuse LIVE keys rather than
	// create what LIVE cannot complete.
	liveKey.Post("/v1/agents", map[string]any{"name": "live"}).ExpectError(t, http.StatusForbidden, "SANDBOX_ONLY")
	liveKey.Get("/v1/agents").ExpectError(t, http.StatusForbidden, "SANDBOX_ONLY")
	liveKey.Post("/v1/agents/"+id+"/cards", map[string]any{}).ExpectError(t, http.StatusForbidden, "SANDBOX_ONLY")
	liveKey.Post("/v1/cardholders", map[string]any{"name": "Live", "email": "live@example.com"}).ExpectError(t, http.StatusForbidden, "SANDBOX_ONLY")
	ten.Root.Get("/v1/agents/"+id+"/nope").ExpectError(t, 404, "ROUTE_NOT_FOUND")
}

// TestAgents_PolicyAttachment: a policy attaches to an agent subject of the caller; another
// tenant's agent is not found.
func TestAgents_PolicyAttachment(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "policy")["id"].(string)
	pol := ten.Root.Post("/v1/policies", map[string]any{"name": "agent cap",
		"document": map[string]any{"schemaVersion": 1, "limits": map[string]any{"perTransactionUsd": "5"}}}).Expect(t, 201).JSON(t)
	pid := pol["policyId"].(string)
	att := ten.Root.Post("/v1/policies/"+pid+"/attachments", map[string]any{"subjectType": "agent", "subjectId": id}).Expect(t, 201).JSON(t)
	if att["subjectType"] != "agent" || att["subjectId"] != id {
		t.Fatalf("attachment %v", att)
	}
	ten.Root.Post("/v1/policies/"+pid+"/attachments", map[string]any{"subjectType": "agent", "subjectId": "agt_nope"}).ExpectError(t, 404, "AGENT_NOT_FOUND")
	other := env().NewTenant(t)
	opol := other.Root.Post("/v1/policies", map[string]any{"name": "x", "document": map[string]any{"schemaVersion": 1}}).Expect(t, 201).JSON(t)
	other.Root.Post("/v1/policies/"+opol["policyId"].(string)+"/attachments", map[string]any{"subjectType": "agent", "subjectId": id}).
		ExpectError(t, 404, "AGENT_NOT_FOUND")
	// Evaluating by the agent subject finds its policy.
	verdict := ten.Root.Post("/v1/policies/evaluate", map[string]any{"subjectType": "agent", "subjectId": id, "amountUsd": "6"}).Expect(t, 200).JSON(t)
	if verdict["allow"] != false {
		t.Fatalf("evaluate %v", verdict)
	}
}

// TestAgents_Idempotent: a retried create with one Idempotency-Key makes one agent; a retried
// key mint replays the key without its plaintext.
func TestAgents_Idempotent(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	c := ten.Root.With("Idempotency-Key", "agent-create-1")
	first := c.Post("/v1/agents", map[string]any{"name": "once"}).Expect(t, 201).JSON(t)
	again := c.Post("/v1/agents", map[string]any{"name": "once"}).Expect(t, 201).JSON(t)
	if first["id"] != again["id"] {
		t.Fatalf("two agents: %v %v", first, again)
	}
	if got := ten.Root.Get("/v1/agents").Expect(t, 200).JSON(t); got["total"] != float64(1) {
		t.Fatalf("list %v", got)
	}
	id := first["id"].(string)
	k := ten.Root.With("Idempotency-Key", "agent-key-1")
	mintedResp := k.Post("/v1/agents/"+id+"/keys", map[string]any{"name": "k", "scopes": []string{"agents:read"}}).Expect(t, 201)
	minted := mintedResp.JSON(t)
	replayed := k.Post("/v1/agents/"+id+"/keys", map[string]any{"name": "k", "scopes": []string{"agents:read"}}).Expect(t, 201)
	body := replayed.JSON(t)
	if minted["key"] == nil || body["key"] != nil || body["id"] != minted["id"] || replayed.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay %v of %v", body, minted)
	}
	// The replay is the first answer byte for byte but the hidden key: same fields, same order.
	secret, _ := json.Marshal(minted["key"])
	if want := strings.Replace(string(mintedResp.Body), `"key":`+string(secret), `"key":null`, 1); string(replayed.Body) != want {
		t.Fatalf("replay\n%s\nwant\n%s", replayed.Body, want)
	}
}
