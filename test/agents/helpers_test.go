package agents

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/test/harness"
)

// owner is a Safe owner key the test signs with.
type owner = harness.Owner

func createAgent(t *testing.T, c *harness.Client, name string) map[string]any {
	t.Helper()
	return c.Post("/v1/agents", map[string]any{"name": name}).Expect(t, http.StatusCreated).JSON(t)
}

// agentKey mints a key for the agent and returns its response (plaintext in "key").
func agentKey(t *testing.T, c *harness.Client, agentID string, scopes ...string) map[string]any {
	t.Helper()
	return c.Post("/v1/agents/"+agentID+"/keys", map[string]any{"name": "agent key", "scopes": scopes}).Expect(t, http.StatusCreated).JSON(t)
}

func put(c *harness.Client, path string, body any) *harness.Response {
	return c.Do(http.MethodPut, path, body)
}

// agentWallet provisions the agent's Safe owned by o (threshold 1), waits until it is
// DEPLOYED and funds it with fund USDC.
func agentWallet(t *testing.T, ten *harness.Tenant, agentID string, o owner, fund string) string {
	t.Helper()
	w := ten.Root.Post("/v1/agents/"+agentID+"/wallet", map[string]any{
		"owners": []map[string]any{{"address": o.Address.Hex(), "role": "AGENT"}}}).Expect(t, http.StatusAccepted).JSON(t)
	if w["purpose"] != "AGENT" || w["status"] != "PENDING_DEPLOYMENT" || w["predictedAddress"] != true {
		t.Fatalf("agent wallet %v", w)
	}
	id := w["id"].(string)
	ten.Root.WaitWalletDeployed(t, id)
	if fund != "" {
		ten.Root.Fund(t, id, fund)
	}
	return id
}

// payee receives every test payment.
var payee = common.HexToAddress("0x00000000000000000000000000000000000000aa")

func payBody(walletID string, amount string) map[string]any {
	return map[string]any{
		"sourceWalletId": walletID,
		"destination":    map[string]any{"type": "address", "address": payee.Hex(), "chainId": wallet.SandboxChainID},
		"amount":         map[string]any{"value": amount, "asset": "usdc"},
	}
}

// complete signs a threshold-1 payment with its owner and waits until it is COMPLETED.
func complete(t *testing.T, c *harness.Client, pay map[string]any, o owner) {
	t.Helper()
	id := pay["id"].(string)
	c.SignPayment(t, id, o).Expect(t, 200)
	got := poll(t, func() map[string]any { return c.Get("/v1/payments/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "COMPLETED" || m["status"] == "FAILED" })
	if got["status"] != "COMPLETED" {
		t.Fatalf("payment %v", got)
	}
}

func scopesOf(m map[string]any) map[string]bool {
	out := map[string]bool{}
	for _, s := range m["scopes"].([]any) {
		out[s.(string)] = true
	}
	return out
}

// poll calls get until done holds (harness.Poll's limit).
func poll(t *testing.T, get func() map[string]any, done func(map[string]any) bool) map[string]any {
	t.Helper()
	return harness.Poll(t, "the awaited state", get, done)
}

// expectPagesInOrder pages through a timeline limit items at a time, following nextCursor, and
// fails unless the pages hold exactly items, in the same order (at most ten pages).
func expectPagesInOrder(t *testing.T, c *harness.Client, path string, limit int, items []any) {
	t.Helper()
	var paged []string
	cursor := ""
	for range 10 {
		q := path + "?limit=" + strconv.Itoa(limit)
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		page := c.Get(q).Expect(t, 200).JSON(t)
		for _, it := range page["items"].([]any) {
			paged = append(paged, it.(map[string]any)["id"].(string))
		}
		next, _ := page["nextCursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if len(paged) != len(items) {
		t.Fatalf("paged %d items, want %d", len(paged), len(items))
	}
	for i, id := range paged {
		if items[i].(map[string]any)["id"] != id {
			t.Fatalf("page order differs at %d: %v", i, paged)
		}
	}
}
