package checkout

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/test/harness"
)

// create makes a checkout of amount USD (a JSON number) and returns its answer.
func create(t *testing.T, c *harness.Client, amount float64) map[string]any {
	t.Helper()
	return c.Post("/v1/payments", map[string]any{"amount": amount, "currency": "USD", "cryptocurrency": "USDC",
		"description": "Order 42", "customer": map[string]any{"email": "payer@example.com", "name": "Pat Payer"},
		"metadata": map[string]any{"order": "42"}}).Expect(t, 201).JSON(t)
}

// pay sends base units of TestUSDC to address on the simulated chain (minted there: the
// transfer comes from no payer, so refunds name their address).
func pay(t *testing.T, address string, units int64) {
	t.Helper()
	if _, err := env().Chain.MintUSDC(context.Background(), common.HexToAddress(address), big.NewInt(units)); err != nil {
		t.Fatal(err)
	}
}

// mine adds n blocks, deepening every transfer by n confirmations.
func mine(t *testing.T, n int) {
	t.Helper()
	for range n {
		if _, err := env().Chain.MineSimulated(); err != nil {
			t.Fatal(err)
		}
	}
}

// get reads a checkout.
func get(t *testing.T, c *harness.Client, id string) map[string]any {
	t.Helper()
	return c.Get("/v1/payments/"+id).Expect(t, 200).JSON(t)
}

// waitStatus polls the checkout until its status is want.
func waitStatus(t *testing.T, c *harness.Client, id, want string) map[string]any {
	t.Helper()
	return harness.Poll(t, "checkout "+id+" "+want, func() map[string]any { return get(t, c, id) },
		func(m map[string]any) bool { return m["status"] == want })
}

// endpoint registers a webhook endpoint for events and returns its secret.
func endpoint(t *testing.T, c *harness.Client, url string, events ...string) string {
	t.Helper()
	ep := c.Post("/v1/webhook-endpoints", map[string]any{"url": url, "events": events}).Expect(t, 201).JSON(t)
	return ep["secret"].(string)
}

func newAddress(t *testing.T) string {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(key.PublicKey).Hex()
}

func usdcBalance(t *testing.T, address string) int64 {
	t.Helper()
	b, err := env().Chain.USDCBalance(context.Background(), common.HexToAddress(address))
	if err != nil {
		t.Fatal(err)
	}
	return b.Int64()
}

// events lists the tenant's events of one type.
func events(t *testing.T, c *harness.Client, typ string) []any {
	t.Helper()
	return c.Get("/v1/events?type="+typ).Expect(t, 200).JSON(t)["events"].([]any)
}
