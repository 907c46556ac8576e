// Package secondary holds black-box tests of the secondary surface's wallet routes (docs/api.md
// "Secondary documented shapes", docs/decisions/checkout.md) over HTTP, against a real PostgreSQL and go-ethereum's
// simulated chain with the real Safe v1.4.1 contracts: each route against real wallets, Safe
// payments and the ledger mirror, and the secondary error shape.
package secondary

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

var env = harness.Shared

type owner struct {
	key     *ecdsa.PrivateKey
	address common.Address
}

func newOwner(t *testing.T) owner {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return owner{key: key, address: crypto.PubkeyToAddress(key.PublicKey)}
}

// secondaryWallet creates a wallet through the secondary body and returns its id.
func secondaryWallet(t *testing.T, c *harness.Client, o owner, customer string) map[string]any {
	t.Helper()
	return c.Post("/v1/wallets", map[string]any{"customer_id": customer, "currencies": []string{"USDC", "ETH"},
		"owner_address": o.address.Hex()}).Expect(t, 201).JSON(t)
}

// poll calls get until done holds, for up to 30 s.
func poll(t *testing.T, what string, get func() map[string]any, done func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m := get()
		if done(m) {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; last: %v", what, m)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func deployed(t *testing.T, c *harness.Client, id string) {
	t.Helper()
	got := poll(t, "deployment", func() map[string]any { return c.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "DEPLOYED" || m["status"] == "FAILED" })
	if got["status"] != "DEPLOYED" {
		t.Fatalf("wallet did not deploy: %v", got)
	}
}

func fund(t *testing.T, c *harness.Client, id, amount string) {
	t.Helper()
	drip := c.Post("/v1/wallets/"+id+"/fund", map[string]any{"asset": "usdc", "amount": amount}).Expect(t, 201).JSON(t)
	got := poll(t, "drip", func() map[string]any { return c.Get("/v1/faucet/drips/"+drip["id"].(string)).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] != "SUBMITTED" })
	if got["status"] != "CONFIRMED" {
		t.Fatalf("drip: %v", got)
	}
}

// index runs the chain indexer once, so the ledger mirror holds what the chain holds.
func index(t *testing.T) {
	t.Helper()
	if _, err := env().Service.Mirror.IndexChain(context.Background(), core.EnvTest); err != nil {
		t.Logf("index: %v", err) // another test's run may hold the cursor; the poll retries
	}
}

// secondaryError checks a secondary error body: status, code, a message, and the canonical
// code and request id in details.
func secondaryError(t *testing.T, r *harness.Response, status int, code string) map[string]any {
	t.Helper()
	r.Expect(t, status)
	m := r.JSON(t)
	e, ok := m["error"].(map[string]any)
	if !ok || len(m) != 1 {
		t.Fatalf("not the secondary error shape: %s", r.Body)
	}
	if e["code"] != code {
		t.Fatalf("code %v, want %s: %s", e["code"], code, r.Body)
	}
	if msg, _ := e["message"].(string); msg == "" {
		t.Fatalf("no message: %s", r.Body)
	}
	details, _ := e["details"].(map[string]any)
	if details["request_id"] != r.Header.Get("X-Request-Id") || details["canonical_code"] == "" {
		t.Fatalf("details %v (X-Request-Id %s)", details, r.Header.Get("X-Request-Id"))
	}
	return e
}

func signature(t *testing.T, safeTxHash string, o owner) string {
	t.Helper()
	sig, err := safe.Sign(common.HexToHash(safeTxHash), o.key)
	if err != nil {
		t.Fatal(err)
	}
	return sig.Hex()
}

func transactions(t *testing.T, c *harness.Client, path string) (data []map[string]any, total int, hasMore bool) {
	t.Helper()
	m := c.Get(path).Expect(t, 200).JSON(t)
	for _, d := range m["data"].([]any) {
		data = append(data, d.(map[string]any))
	}
	return data, int(m["total"].(float64)), m["has_more"].(bool)
}

func ids(data []map[string]any) string {
	out := ""
	for _, d := range data {
		out += fmt.Sprintf("%s/%s/%s/%s ", d["id"], d["type"], d["amount"], d["status"])
	}
	return out
}

// newLimited is a server whose rate limit is a burst of 3 at 0.5 a second.
func newLimited(t *testing.T) *harness.Env {
	return harness.NewServer(t, func(c *wiring.Config) { c.RateLimit.PerSecond, c.RateLimit.Burst = 0.5, 3 })
}
