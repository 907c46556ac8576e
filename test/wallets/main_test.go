// Package wallets holds black-box tests of wallets, the faucet and the handle directory over
// HTTP, against a real PostgreSQL and go-ethereum's simulated chain with the real Safe v1.4.1
// contracts. Each test runs in its own tenant, in parallel.
package wallets

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

var env = harness.Shared

// waitDeadline bounds every poll for an asynchronous outcome.
const waitDeadline = 30 * time.Second

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitDeadline)
	t.Cleanup(cancel)
	return ctx
}

// owners returns n fresh owner keys and their addresses.
func owners(t *testing.T, n int) ([]*ecdsa.PrivateKey, []string) {
	t.Helper()
	keys := make([]*ecdsa.PrivateKey, n)
	addrs := make([]string, n)
	for i := range keys {
		k, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		keys[i], addrs[i] = k, crypto.PubkeyToAddress(k.PublicKey).Hex()
	}
	return keys, addrs
}

// walletBody is a create request with the given owners (all ADMIN_OWNER) and threshold.
func walletBody(name string, addrs []string, threshold int) map[string]any {
	list := make([]map[string]any, len(addrs))
	for i, a := range addrs {
		list[i] = map[string]any{"address": a, "role": "ADMIN_OWNER"}
	}
	return map[string]any{"name": name, "owners": list, "threshold": threshold}
}

// newWallet creates a 1-of-1 wallet and returns its response.
func newWallet(t *testing.T, c *harness.Client) map[string]any {
	t.Helper()
	_, addrs := owners(t, 1)
	return c.Post("/v1/wallets", walletBody("w", addrs, 1)).Expect(t, 201).JSON(t)
}

// waitFor polls get until done returns true or the deadline passes, and returns the last body.
func waitFor(t *testing.T, what string, get func() map[string]any, done func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(waitDeadline)
	for {
		m := get()
		if done(m) {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not done after %s: %v", what, waitDeadline, m)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitDeployed(t *testing.T, c *harness.Client, id string) map[string]any {
	t.Helper()
	w := waitFor(t, "deploy "+id, func() map[string]any { return c.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "DEPLOYED" || m["status"] == "FAILED" })
	if w["status"] != "DEPLOYED" {
		t.Fatalf("wallet %s: %v", id, w)
	}
	return w
}

func waitDrip(t *testing.T, c *harness.Client, id string) map[string]any {
	t.Helper()
	return waitFor(t, "drip "+id, func() map[string]any { return c.Get("/v1/faucet/drips/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] != "SUBMITTED" })
}

func units(s string, decimals int) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return v.Mul(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
}

func addr(v any) common.Address { return common.HexToAddress(v.(string)) }

// liveClient is a LIVE root key of the tenant, created with the tenant's session.
func liveClient(t *testing.T, ten *harness.Tenant) *harness.Client {
	t.Helper()
	key := env().NewKey(t, ten.Session, map[string]any{"name": "live", "environment": "live", "scopes": []string{"*"}})
	return env().Client(t).WithKey(key)
}
