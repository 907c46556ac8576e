package agents

import (
	"net/http"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// agentWalletOnly asserts a refusal of an agent moving money outside its own wallet.
func agentWalletOnly(t *testing.T, r *harness.Response) {
	t.Helper()
	m := r.ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
	if d, _ := m["details"].(map[string]any); d["reason"] != "AGENT_WALLET_ONLY" {
		t.Fatalf("refusal details %v, want reason AGENT_WALLET_ONLY", m["details"])
	}
}

// TestAgents_CompositeRoutesStayInTheAgentsWallet: every route that moves money on an agent's
// behalf applies the one wallet guard (docs/decisions/tenancy.md): a ramp from the tenant's wallet, a card on it and a
// checkout refund from the service balance are refused AGENT_WALLET_ONLY and change nothing,
// while the agent's own wallet serves the same ramp.
func TestAgents_CompositeRoutesStayInTheAgentsWallet(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	agentID := createAgent(t, ten.Root, "bot")["id"].(string)
	own := agentWallet(t, ten, agentID, o, "50")
	tenantWallet := ten.Root.Post("/v1/wallets", map[string]any{"name": "treasury",
		"owners": []map[string]any{{"address": o.Address.Hex(), "role": "FINANCE_OWNER"}}}).Expect(t, http.StatusCreated).JSON(t)["id"].(string)
	ten.Root.WaitWalletDeployed(t, tenantWallet)
	ten.Root.Fund(t, tenantWallet, "50")
	bot := env().Client(t).WithKey(agentKey(t, ten.Root, agentID, "*")["key"].(string))

	for _, direction := range []string{"off", "on"} {
		agentWalletOnly(t, bot.Post("/v1/ramps", map[string]any{"walletId": tenantWallet, "direction": direction, "amount": "5"}))
	}
	if n := ten.Root.Get("/v1/ramps").Expect(t, http.StatusOK).JSON(t)["total"]; n != float64(0) {
		t.Fatalf("refused ramps were recorded: %v", n)
	}
	if n := ten.Root.Get("/v1/payments").Expect(t, http.StatusOK).JSON(t)["total"]; n != float64(0) {
		t.Fatalf("a refused ramp proposed a payment: %v", n)
	}
	bot.Post("/v1/ramps", map[string]any{"walletId": own, "direction": "off", "amount": "5"}).Expect(t, http.StatusCreated)

	agentWalletOnly(t, bot.Post("/v1/wallets/"+tenantWallet+"/cards", map[string]any{}))
	chk := ten.Root.Post("/v1/payments", map[string]any{"amount": 5, "currency": "USD", "cryptocurrency": "USDC"}).Expect(t, http.StatusCreated).JSON(t)
	r := bot.Post("/v1/payments/"+chk["id"].(string)+"/refund", map[string]any{})
	m := r.JSON(t)
	if inner, ok := m["error"].(map[string]any); ok {
		m = inner
	}
	if r.Status != http.StatusForbidden || m["code"] != "insufficient_scope" && m["code"] != "INSUFFICIENT_SCOPE" {
		t.Fatalf("an agent's checkout refund: %d %s", r.Status, r.Body)
	}
}
