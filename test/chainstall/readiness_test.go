package chainstall

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/test/harness"
)

// TestReadiness_ChainOutageDegradesOnlyChainRoutes: while the configured chain's node does not
// answer, /readyz stays 200 (the replica stays in the load balancer) and says degraded, naming
// the chain; /v1/status reports the chain unavailable; the ledger, API keys and an off-ramp
// payout to the recipient's service balance (an internal rail) serve as before, while a chain
// route answers 503 CHAIN_UNAVAILABLE. Once the node answers, /readyz is ok again.
func TestReadiness_ChainOutageDegradesOnlyChainRoutes(t *testing.T) {
	env := harness.Shared()
	ready := env.Client(t).Get("/readyz").Expect(t, 200).JSON(t)
	if checks := ready["checks"].(map[string]any); ready["status"] != "ok" || checks["chain:TEST"] != "ok" || checks["database"] != "ok" || checks["jobs"] != "ok" {
		t.Fatalf("readyz before the stall: %v", ready)
	}
	if _, checked := ready["checks"].(map[string]any)["chain:LIVE"]; checked {
		t.Fatalf("an unconfigured chain is checked: %v", ready)
	}
	sender, recipient := env.NewTenant(t), env.NewTenant(t)
	sender.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "20"}).Expect(t, 201)
	phone := onboardedRecipient(t, recipient.Root)
	recipient.Root.Post("/v1/payout-destinations", map[string]any{"type": "SERVICE_BALANCE"}).Expect(t, 201)
	walletID, owner := deployedWallet(t, sender)

	mirrorAt := harness.Poll(t, "the mirror has indexed a block", func() map[string]any {
		return chainLine(sender.Root.Get("/v1/status").Expect(t, 200).JSON(t), "TEST")
	}, func(m map[string]any) bool { return m["indexedThroughBlock"] != nil })["indexedThroughBlock"].(float64)

	env.StallChain(true)
	t.Cleanup(func() { env.StallChain(false) })
	got := env.Client(t).Get("/readyz").Expect(t, 200).JSON(t)
	checks := got["checks"].(map[string]any)
	if got["status"] != "degraded" || checks["chain:TEST"] != "the chain's node does not answer" || checks["database"] != "ok" ||
		fmt.Sprint(got["degraded"]) != "[chain:TEST]" {
		t.Fatalf("readyz during the stall: %v", got)
	}
	status := sender.Root.Get("/v1/status").Expect(t, 200).JSON(t)
	if !chainStatus(status, "TEST", "unavailable") || status["status"] != "degraded" {
		t.Fatalf("/v1/status during the stall: %v", status)
	}
	// Where the mirror stands is the database's to say: still reported, with no head to trail.
	if line := chainLine(status, "TEST"); line["latestBlock"] != nil || line["mirrorLagBlocks"] != nil ||
		line["indexedThroughBlock"] == nil || line["indexedThroughBlock"].(float64) < mirrorAt {
		t.Fatalf("/v1/status's TEST chain during the stall: %v (the mirror had indexed through %v)", line, mirrorAt)
	}
	// The ledger, keys and an internal payout keep serving.
	sender.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "5"}).Expect(t, 201)
	sender.Root.Get("/v1/ledger/accounts").Expect(t, 200)
	sender.Root.Post("/v1/api-keys", map[string]any{"name": "during the outage", "scopes": []string{"payments:read"}}).Expect(t, 201)
	pay := sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": phone, "amountUsd": "3"}).Expect(t, 201).JSON(t)
	id := pay["paymentId"].(string)
	routes := recipient.Root.Get("/v1/offramp/payments/"+id+"/routes").Expect(t, 200).JSON(t)["routes"].([]any)
	recipient.Root.Post("/v1/offramp/payments/"+id+"/select-route", map[string]any{"routeQuoteId": routes[0].(map[string]any)["routeId"]}).Expect(t, 200)
	recipient.Root.Post("/v1/offramp/payments/"+id+"/confirm", nil).Expect(t, 200)
	harness.WaitOfframpPayment(t, sender.Root, id, "DELIVERED")
	// A chain route answers 503 CHAIN_UNAVAILABLE.
	sender.Root.Post("/v1/payments", map[string]any{"sourceWalletId": walletID,
		"destination": map[string]any{"type": "address", "address": owner, "chainId": wallet.SandboxChainID},
		"amount":      map[string]any{"value": "1", "asset": "usdc"}}).ExpectError(t, 503, "CHAIN_UNAVAILABLE")

	env.StallChain(false)
	if again := env.Client(t).Get("/readyz").Expect(t, 200).JSON(t); again["status"] != "ok" {
		t.Fatalf("readyz after the stall: %v", again)
	}
}

// chainStatus reports whether /v1/status shows env's chain with the given status.
func chainStatus(status map[string]any, env, want string) bool {
	return chainLine(status, env)["status"] == want
}

// chainLine is the /v1/status line of env's chain (nil when there is none).
func chainLine(status map[string]any, env string) map[string]any {
	chains, _ := status["chains"].([]any)
	for _, c := range chains {
		if m, _ := c.(map[string]any); m["environment"] == env {
			return m
		}
	}
	return nil
}

// onboardedRecipient gives the tenant an ACTIVE credential and a verified phone alias.
func onboardedRecipient(t *testing.T, c *harness.Client) string {
	t.Helper()
	c.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	phone := harness.Phone("628")
	alias := c.Post("/v1/phone-aliases", map[string]any{"phone": phone}).Expect(t, 201).JSON(t)
	code := harness.SMSCode(t, harness.SMSBody(t, c, "phone_alias_verification", nil))
	c.Post("/v1/phone-aliases/"+alias["id"].(string)+"/verify", map[string]any{"code": code}).Expect(t, 200)
	return phone
}

// TestMetrics_Chain: with a chain configured, the metrics listener reports its head, the
// ledger mirror's lag behind it, the relayer's balance and its pending and stuck transactions.
func TestMetrics_Chain(t *testing.T) {
	env := harness.Shared()
	if _, err := env.Service.Mirror.IndexChain(context.Background(), core.EnvTest); err != nil {
		t.Fatalf("index: %v", err)
	}
	want := []string{
		`corridor_chain_up{chain_id="84532",environment="TEST"} 1`,
		`corridor_chain_head_block{chain_id="84532",environment="TEST"} `,
		`corridor_chain_indexer_lag_blocks{chain_id="84532",environment="TEST"} `,
		`corridor_relayer_balance_eth{chain_id="84532",environment="TEST"} `,
		`corridor_relayer_pending_transactions{chain_id="84532"} `,
		`corridor_relayer_stuck_transactions{chain_id="84532"} `,
		`corridor_metrics_source_up{source="chain:TEST"} 1`,
	}
	// The state gauges are read at most once per 5 s (metrics.DefaultMinInterval), so a scrape
	// may answer a read from before the indexing (or from while another test stalled the
	// chain): await the read that shows every series, then report what the last one lacked.
	var body string
	harness.Eventually(t, "the chain's series in the metrics", func() bool {
		body = env.Metrics(t)
		return !slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(body, w) })
	})
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("metrics lack %s", w)
		}
	}
}
