package wallets

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// chainFeatures are the features that need the environment's chain (wiring.ChainFeatures).
var chainFeatures = []string{"wallets", "payments", "faucet", "handles", "cards", "agents", "treasury",
	"invoices", "bills", "ramps", "pendingClaims", "checkout", "ledgerReconciliation"}

// offChainFeatures work in an environment without a chain.
var offChainFeatures = []string{"tenants", "apiKeys", "ledger", "balances", "policies",
	"phoneAliases", "webhooks", "twoFactor", "contacts"}

// sandboxFeatures work only where the sandbox issues credentials and a chain holds claims:
// payout destinations need a BUSINESS_IDENTITY credential, off-ramp payments need payout
// destinations and pending claims.
var sandboxFeatures = []string{"payoutDestinations", "offrampPayments"}

// features is the capabilities document c's environment reads, checked to be envName's.
func features(t *testing.T, c *harness.Client, envName string) map[string]any {
	t.Helper()
	caps := c.Get("/v1/capabilities").Expect(t, 200).JSON(t)
	if caps["environment"] != envName {
		t.Fatalf("capabilities environment %v, want %s", caps["environment"], envName)
	}
	return caps["features"].(map[string]any)
}

// TestCapabilities_PerEnvironment: the sandbox, whose chain serves every contract, reports
// every chain feature true; LIVE, with no chain in this deployment, reports each of them false
// and keeps the features that need no chain.
func TestCapabilities_PerEnvironment(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	for name, c := range map[string]*harness.Client{"anonymous": env().Client(t), "TEST key": ten.Root} {
		f := features(t, c, "TEST")
		for _, k := range append(append(append([]string{}, chainFeatures...), offChainFeatures...), sandboxFeatures...) {
			if f[k] != true {
				t.Errorf("%s: features.%s = %v, want true", name, k, f[k])
			}
		}
	}
	f := features(t, liveClient(t, ten), "LIVE")
	for _, k := range append(append([]string{}, chainFeatures...), sandboxFeatures...) {
		if f[k] != false {
			t.Errorf("LIVE without a chain: features.%s = %v, want false", k, f[k])
		}
	}
	for _, k := range offChainFeatures {
		if f[k] != true {
			t.Errorf("LIVE: features.%s = %v, want true", k, f[k])
		}
	}
}

// TestCapabilities_LiveChainOperationsAnswerChainUnavailable: every LIVE operation that needs
// the missing chain answers 503 CHAIN_UNAVAILABLE in its surface's own error shape (hosted
// checkout and secondary wallets in the secondary shape), and creates nothing.
func TestCapabilities_LiveChainOperationsAnswerChainUnavailable(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	live := liveClient(t, ten)
	_, addrs := owners(t, 1)

	live.Post("/v1/wallets", walletBody("live", addrs, 1)).ExpectError(t, 503, "CHAIN_UNAVAILABLE")
	live.Post("/v1/payments", map[string]any{"sourceWalletId": "wal_06h1ymvyv1s8faeg1ekrjqegdr",
		"destination": map[string]any{"type": "address", "address": addrs[0], "chainId": 8453},
		"amount":      map[string]any{"value": "1", "asset": "usdc"}}).ExpectError(t, 503, "CHAIN_UNAVAILABLE")
	live.Get("/v1/ledger/reconciliation").ExpectError(t, 503, "CHAIN_UNAVAILABLE")

	secondaryUnavailable(t, live.Post("/v1/wallets", map[string]any{"customer_id": "c", "currencies": []string{"USDC"},
		"owner_address": addrs[0]}))
	secondaryUnavailable(t, live.Post("/v1/payments", map[string]any{"amount": 5, "currency": "USD", "cryptocurrency": "USDC",
		"description": "live order"}))

	if list := live.Get("/v1/wallets").Expect(t, 200).JSON(t); list["total"].(float64) != 0 {
		t.Fatalf("a refused LIVE operation created a wallet: %v", list)
	}
}

// secondaryUnavailable checks r is 503 chain_unavailable in the secondary error shape.
func secondaryUnavailable(t *testing.T, r *harness.Response) {
	t.Helper()
	r.Expect(t, 503)
	m := r.JSON(t)
	e, ok := m["error"].(map[string]any)
	if !ok || len(m) != 1 || e["code"] != "chain_unavailable" || e["message"] == "" {
		t.Fatalf("want the secondary shape with chain_unavailable: %s", r.Body)
	}
	if d, _ := e["details"].(map[string]any); d["canonical_code"] != "CHAIN_UNAVAILABLE" {
		t.Fatalf("details: %s", r.Body)
	}
}
