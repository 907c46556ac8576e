package chainstall

import (
	"context"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/test/harness"
)

// TestReadiness_FailsWhileTheChainNodeStalls: /readyz checks the configured chain's node, says
// so in its body while the node does not answer, and is ready again once it does.
func TestReadiness_FailsWhileTheChainNodeStalls(t *testing.T) {
	env := harness.Shared()
	ready := env.Client(t).Get("/readyz").Expect(t, 200).JSON(t)
	if checks := ready["checks"].(map[string]any); checks["chain:TEST"] != "ok" || checks["database"] != "ok" || checks["jobs"] != "ok" {
		t.Fatalf("readyz before the stall: %v", ready)
	}
	if _, checked := ready["checks"].(map[string]any)["chain:LIVE"]; checked {
		t.Fatalf("an unconfigured chain is checked: %v", ready)
	}

	env.StallChain(true)
	t.Cleanup(func() { env.StallChain(false) })
	got := env.Client(t).Get("/readyz").ExpectError(t, 503, "SERVICE_UNAVAILABLE")
	checks := got["details"].(map[string]any)["checks"].(map[string]any)
	if checks["chain:TEST"] != "the chain's node does not answer" || checks["database"] != "ok" || got["message"] != "not ready: chain:TEST" {
		t.Fatalf("readyz during the stall: %v", got)
	}

	env.StallChain(false)
	env.Client(t).Get("/readyz").Expect(t, 200)
}

// TestMetrics_Chain: with a chain configured, the metrics listener reports its head, the
// ledger mirror's lag behind it, the relayer's balance and its pending and stuck transactions.
func TestMetrics_Chain(t *testing.T) {
	env := harness.Shared()
	if _, err := env.Service.Wallets.IndexChain(context.Background(), core.EnvTest); err != nil {
		t.Fatalf("index: %v", err)
	}
	body := env.Metrics(t)
	for _, want := range []string{
		`corridor_chain_up{chain_id="84532",environment="TEST"} 1`,
		`corridor_chain_head_block{chain_id="84532",environment="TEST"} `,
		`corridor_chain_indexer_lag_blocks{chain_id="84532",environment="TEST"} `,
		`corridor_relayer_balance_eth{chain_id="84532",environment="TEST"} `,
		`corridor_relayer_pending_transactions{chain_id="84532"} `,
		`corridor_relayer_stuck_transactions{chain_id="84532"} `,
		`corridor_metrics_source_up{source="chain:TEST"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
