package crash

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/test/harness/faultproxy"
	"github.com/corridorhq/corridor/test/testdb"
)

// TestService_StartsWithoutItsChainNodeThenAttaches: `corridor serve` whose configured node does
// not answer as it starts (a proxy in front of it holds every connection silent) serves without
// it instead of stopping: the ledger answers (a balance deposit, 201), chain routes answer 503
// CHAIN_UNAVAILABLE, and capabilities reports the TEST chain unavailable. Once the node answers,
// the process drains and restarts in place (the same process, which never exits): capabilities
// reports the chain available and a wallet can be created.
func TestService_StartsWithoutItsChainNodeThenAttaches(t *testing.T) {
	t.Parallel()
	node := startChainNode(t)
	proxy, err := faultproxy.Start(strings.TrimPrefix(nodeURL(node), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	proxy.Blackhole(true)
	env := []string{"CHAIN_REATTACH_INTERVAL=1s", "CHAIN_DIAL_TIMEOUT=2s"}
	for _, kv := range node.env {
		if strings.HasPrefix(kv, "CHAIN_RPC_URL=") {
			kv = "CHAIN_RPC_URL=http://" + proxy.Addr()
		}
		env = append(env, kv)
	}
	url := testdb.NewDatabase(context.Background(), t)
	svc := startService(t, buildCrashBinary(t), url, "", env...)
	client := crashEnv(t, svc.base, url)
	ten := client.NewTenant(t)

	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "5"}).Expect(t, 201)
	body := map[string]any{"name": "after the outage", "owners": owners(t, 1), "threshold": 1}
	ten.Root.Post("/v1/wallets", body).ExpectError(t, http.StatusServiceUnavailable, "CHAIN_UNAVAILABLE")
	if testChainAvailable(t, client) {
		t.Fatal("capabilities reports the TEST chain available while its node does not answer")
	}

	proxy.Blackhole(false)
	harness.Eventually(t, "the restart to attach the node", func() bool { return strings.Contains(svc.output.String(), "restarting in place") })
	if err := harness.WaitHealthy(svc.base, svc.exited, 90*time.Second); err != nil {
		t.Fatalf("after the restart in place: %v (%v)\n%s", err, svc.err, svc.output)
	}
	if !testChainAvailable(t, client) {
		t.Fatalf("capabilities reports the TEST chain unavailable after the restart\n%s", svc.output)
	}
	ten.Root.Post("/v1/wallets", body).Expect(t, 201)
}

// testChainAvailable is capabilities' "available" for the TEST chain.
func testChainAvailable(t *testing.T, env *harness.Env) bool {
	t.Helper()
	for _, raw := range env.Client(t).Get("/v1/capabilities").Expect(t, 200).JSON(t)["chains"].([]any) {
		if c := raw.(map[string]any); c["environment"] == "TEST" {
			return c["available"] == true
		}
	}
	t.Fatal("capabilities lists no TEST chain")
	return false
}

func nodeURL(node chainNode) string {
	for _, kv := range node.env {
		if v, ok := strings.CutPrefix(kv, "CHAIN_RPC_URL="); ok {
			return v
		}
	}
	return ""
}
