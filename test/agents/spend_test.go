package agents

import (
	"net/http"
	"sync"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestAgents_Wallet: one Safe per agent, purpose AGENT, its address usable at once; a second
// call is 409 AGENT_WALLET_EXISTS; a suspended agent is 409 AGENT_SUSPENDED; both scopes are
// needed; concurrent calls make one wallet.
func TestAgents_Wallet(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	owners := []map[string]any{{"address": o.Address.Hex(), "role": "AGENT"}}
	id := createAgent(t, ten.Root, "wallet")["id"].(string)

	onlyManage := env().Client(t).WithKey(env().NewKey(t, ten.Root, map[string]any{"name": "m", "scopes": []string{"agents:manage"}}))
	onlyManage.Post("/v1/agents/"+id+"/wallet", map[string]any{"owners": owners}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	harness.Field(ten.Root.Post("/v1/agents/"+id+"/wallet", map[string]any{"owners": []map[string]any{}}).
		ExpectError(t, 400, "VALIDATION_FAILED"), "owners")

	var wg sync.WaitGroup
	statuses := make([]int, 4)
	bodies := make([]map[string]any, 4)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := ten.Root.Post("/v1/agents/"+id+"/wallet", map[string]any{"owners": owners})
			statuses[i], bodies[i] = r.Status, r.JSON(t)
		}()
	}
	wg.Wait()
	var walletID string
	for i, s := range statuses {
		switch {
		case s == http.StatusAccepted && walletID == "":
			walletID = bodies[i]["id"].(string)
			if bodies[i]["purpose"] != "AGENT" || bodies[i]["name"] != "Agent wallet" {
				t.Fatalf("wallet %v", bodies[i])
			}
		case s == http.StatusConflict && bodies[i]["code"] == "AGENT_WALLET_EXISTS":
		default:
			t.Fatalf("concurrent provisioning: %v %v", statuses, bodies)
		}
	}
	if walletID == "" {
		t.Fatalf("no wallet made: %v", bodies)
	}
	if got := ten.Root.Get("/v1/agents/"+id).Expect(t, 200).JSON(t); got["walletId"] != walletID {
		t.Fatalf("agent %v", got)
	}
	ten.Root.Post("/v1/agents/"+id+"/wallet", map[string]any{"owners": owners}).ExpectError(t, 409, "AGENT_WALLET_EXISTS")
	if w := ten.Root.Get("/v1/wallets/"+walletID).Expect(t, 200).JSON(t); w["purpose"] != "AGENT" {
		t.Fatalf("wallet %v", w)
	}

	suspended := createAgent(t, ten.Root, "suspended")["id"].(string)
	ten.Root.Post("/v1/agents/"+suspended+"/suspend", nil).Expect(t, 200)
	ten.Root.Post("/v1/agents/"+suspended+"/wallet", map[string]any{"owners": owners}).ExpectError(t, 409, "AGENT_SUSPENDED")
	ten.Root.Get("/v1/agents/agt_nope").ExpectError(t, 404, "AGENT_NOT_FOUND")
	ten.Root.Post("/v1/agents/agt_nope/wallet", map[string]any{"owners": owners}).ExpectError(t, 404, "AGENT_NOT_FOUND")
}

// TestAgents_SuspendBlocksPayments: suspended, the agent key's next payment is 403
// AGENT_SUSPENDED while a tenant key still pays from the agent's wallet; reactivated, the
// agent key pays again.
func TestAgents_SuspendBlocksPayments(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	id := createAgent(t, ten.Root, "payer")["id"].(string)
	walletID := agentWallet(t, ten, id, o, "")
	key := env().Client(t).WithKey(agentKey(t, ten.Root, id, "payments:create", "payments:read")["key"].(string))
	key.Post("/v1/payments", payBody(walletID, "1")).Expect(t, 201)
	ten.Root.Post("/v1/agents/"+id+"/suspend", nil).Expect(t, 200)
	key.Post("/v1/payments", payBody(walletID, "1")).ExpectError(t, 403, "AGENT_SUSPENDED")
	ten.Root.Post("/v1/payments", payBody(walletID, "1")).Expect(t, 201)
	ten.Root.Post("/v1/agents/"+id+"/reactivate", nil).Expect(t, 200)
	key.Post("/v1/payments", payBody(walletID, "1")).Expect(t, 201)
}

// TestAgents_LimitAtCapEdge: the per-transaction cap and the daily cap against what the spend
// guard reserved; exactly at a cap passes and one base unit over is AGENT_LIMIT; a proposed
// payment counts from its acceptance, and a cancelled one stops counting.
func TestAgents_LimitAtCapEdge(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	id := createAgent(t, ten.Root, "capped")["id"].(string)
	walletID := agentWallet(t, ten, id, o, "100")
	put(ten.Root, "/v1/agents/"+id+"/limits", map[string]any{"perTransactionUsd": "10", "dailyUsd": "15"}).Expect(t, 200)
	key := env().Client(t).WithKey(agentKey(t, ten.Root, id, "payments:create", "payments:read", "payments:execute")["key"].(string))

	refused := key.Post("/v1/payments", payBody(walletID, "10.000001")).ExpectError(t, 403, "AGENT_LIMIT")
	if d := refused["details"].(map[string]any); d["window"] != "perTransaction" || d["limitUsd"] != "10" {
		t.Fatalf("details %v", d)
	}
	first := key.Post("/v1/payments", payBody(walletID, "10")).Expect(t, 201).JSON(t)
	// Proposed, not settled: it is reserved already, so a second payment of the full cap is refused.
	second := key.Post("/v1/payments", payBody(walletID, "10")).ExpectError(t, 403, "AGENT_LIMIT")
	if d := second["details"].(map[string]any); d["window"] != "daily" || d["spentUsd"] != "10" {
		t.Fatalf("details %v", d)
	}
	complete(t, key, first, o)
	// 10 spent today: 5 more is exactly the daily cap, 5.000001 one base unit over.
	over := key.Post("/v1/payments", payBody(walletID, "5.000001")).ExpectError(t, 403, "AGENT_LIMIT")
	if d := over["details"].(map[string]any); d["window"] != "daily" || d["spentUsd"] != "10" {
		t.Fatalf("details %v", d)
	}
	last := key.Post("/v1/payments", payBody(walletID, "5")).Expect(t, 201).JSON(t)
	// A tenant key paying from the agent's wallet is held to the agent's caps too.
	ten.Root.Post("/v1/payments", payBody(walletID, "0.000001")).ExpectError(t, 403, "AGENT_LIMIT")
	// A cancelled payment releases its reservation.
	ten.Root.Post("/v1/payments/"+last["id"].(string)+"/cancel", nil).Expect(t, 200)
	ten.Root.Post("/v1/payments", payBody(walletID, "5")).Expect(t, 201)
	// Raising the cap lets one more through; another wallet of the tenant is not the agent's.
	put(ten.Root, "/v1/agents/"+id+"/limits", map[string]any{"dailyUsd": "15.000001"}).Expect(t, 200)
	key.Post("/v1/payments", payBody(walletID, "0.000001")).Expect(t, 201)
}

// TestAgents_KeyPaysOnlyFromItsWallet: an agent key proposes payments from its agent's Safe,
// where the caps apply, and from no other wallet of the tenant.
func TestAgents_KeyPaysOnlyFromItsWallet(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	id := createAgent(t, ten.Root, "confined")["id"].(string)
	key := env().Client(t).WithKey(agentKey(t, ten.Root, id, "payments:create", "payments:read")["key"].(string))
	general := ten.Root.Post("/v1/wallets", map[string]any{"name": "operating",
		"owners": []map[string]any{{"address": o.Address.Hex(), "role": "FINANCE_OWNER"}}}).Expect(t, 201).JSON(t)["id"].(string)
	ten.Root.WaitWalletDeployed(t, general)
	e := key.Post("/v1/payments", payBody(general, "1")).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	if d, _ := e["details"].(map[string]any); d["reason"] != "AGENT_WALLET_ONLY" {
		t.Fatalf("details %v", e["details"])
	}
	own := agentWallet(t, ten, id, o, "")
	key.Post("/v1/payments", payBody(general, "1")).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	key.Post("/v1/payments", payBody(own, "1")).Expect(t, 201)
	ten.Root.Post("/v1/payments", payBody(general, "1")).Expect(t, 201) // the tenant's own keys are not confined
}
