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

// TestAgents_PaymentStepsStayInTheAgentsWallet: an agent key signs, executes and cancels only
// its own wallet's payments, as it proposes only from it. On a tenant wallet's payments (one
// awaiting its two signatures with a later one queued behind it) each step answers 403
// AGENT_WALLET_ONLY and changes nothing: no signature recorded, no cancel, no rejection
// proposed on the tenant's wallet. The agent cancels its own wallet's payment.
func TestAgents_PaymentStepsStayInTheAgentsWallet(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o, o2 := harness.NewOwner(t), harness.NewOwner(t)
	agentID := createAgent(t, ten.Root, "bot")["id"].(string)
	own := agentWallet(t, ten, agentID, o, "10")
	tenantWallet := ten.Root.Post("/v1/wallets", map[string]any{"name": "treasury", "threshold": 2,
		"owners": []map[string]any{{"address": o.Address.Hex(), "role": "FINANCE_OWNER"}, {"address": o2.Address.Hex(), "role": "FINANCE_OWNER"}}}).
		Expect(t, http.StatusCreated).JSON(t)["id"].(string)
	ten.Root.WaitWalletDeployed(t, tenantWallet)
	ten.Root.Fund(t, tenantWallet, "10")
	bot := env().Client(t).WithKey(agentKey(t, ten.Root, agentID, "*")["key"].(string))

	first := ten.Root.Post("/v1/payments", payBody(tenantWallet, "1")).Expect(t, http.StatusCreated).JSON(t)["id"].(string)
	ten.Root.Post("/v1/payments", payBody(tenantWallet, "2")).Expect(t, http.StatusCreated)
	agentWalletOnly(t, bot.SignPayment(t, first, o))
	agentWalletOnly(t, bot.Post("/v1/payments/"+first+"/execute", nil))
	agentWalletOnly(t, bot.Post("/v1/payments/"+first+"/cancel", nil))
	got := ten.Root.Get("/v1/payments/"+first).Expect(t, http.StatusOK).JSON(t)
	if got["status"] != "AWAITING_SIGNATURE" || len(got["signatures"].([]any)) != 0 {
		t.Fatalf("the tenant's payment after the agent's refused steps: %v", got)
	}
	if n := ten.Root.Get("/v1/payments").Expect(t, http.StatusOK).JSON(t)["total"]; n != float64(2) {
		t.Fatalf("the tenant has %v payments, want the 2 it proposed (no rejection)", n)
	}

	mine := bot.Post("/v1/payments", payBody(own, "1")).Expect(t, http.StatusCreated).JSON(t)["id"].(string)
	if c := bot.Post("/v1/payments/"+mine+"/cancel", nil).Expect(t, http.StatusOK).JSON(t); c["status"] != "CANCELLED" {
		t.Fatalf("the agent's cancel of its own payment: %v", c)
	}
}
