package treasury

import (
	"crypto/ecdsa"
	"fmt"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"corridor/core/safe"
	"corridor/test/harness"
)

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

func ownersBody(owners ...owner) []map[string]any {
	out := make([]map[string]any, len(owners))
	for i, o := range owners {
		out[i] = map[string]any{"address": o.address.Hex(), "role": "FINANCE_OWNER"}
	}
	return out
}

func bucket(name, kind string, targetBps int, apyBps ...int) map[string]any {
	b := map[string]any{"name": name, "kind": kind, "targetBps": targetBps}
	if len(apyBps) > 0 {
		b["apyBps"] = apyBps[0]
	}
	return b
}

// createAccount creates an account and waits until every bucket Safe is DEPLOYED.
func createAccount(t *testing.T, c *harness.Client, owners []owner, threshold int, buckets ...map[string]any) map[string]any {
	t.Helper()
	created := c.Post("/v1/treasury/accounts", map[string]any{"name": "treasury test", "owners": ownersBody(owners...),
		"threshold": threshold, "buckets": buckets}).Expect(t, 202).JSON(t)
	id := created["accountId"].(string)
	return poll(t, func() map[string]any { return c.Get("/v1/treasury/accounts/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool {
			for _, b := range m["buckets"].([]any) {
				if b.(map[string]any)["walletStatus"] != "DEPLOYED" {
					return false
				}
			}
			return true
		})
}

func bucketAt(account map[string]any, i int) map[string]any {
	return account["buckets"].([]any)[i].(map[string]any)
}

// fund drips USDC from the faucet into a bucket's wallet and waits for it to land.
func fund(t *testing.T, c *harness.Client, b map[string]any, amount string) {
	t.Helper()
	drip := c.Post("/v1/wallets/"+b["walletId"].(string)+"/fund", map[string]any{"asset": "usdc", "amount": amount}).Expect(t, 201).JSON(t)
	got := poll(t, func() map[string]any { return c.Get("/v1/faucet/drips/"+drip["id"].(string)).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] != "SUBMITTED" })
	if got["status"] != "CONFIRMED" {
		t.Fatalf("drip: %v", got)
	}
}

func sign(t *testing.T, c *harness.Client, paymentID string, o owner) {
	t.Helper()
	pay := c.Get("/v1/payments/"+paymentID).Expect(t, 200).JSON(t)
	sig, err := safe.Sign(common.HexToHash(pay["safeTxHash"].(string)), o.key)
	if err != nil {
		t.Fatal(err)
	}
	c.Post("/v1/payments/"+paymentID+"/sign", map[string]any{"signature": sig.Hex()}).Expect(t, 200)
}

// poll calls get until done holds, for up to 30 s.
func poll(t *testing.T, get func() map[string]any, done func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m := get()
		if done(m) {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting; last: %v", m)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func sweeps(t *testing.T, c *harness.Client, accountID string) []any {
	t.Helper()
	return c.Get("/v1/treasury/accounts/"+accountID+"/sweeps").Expect(t, 200).JSON(t)["sweeps"].([]any)
}

func fields(t *testing.T, e map[string]any) string {
	t.Helper()
	details, _ := e["details"].(map[string]any)
	return fmt.Sprint(details["fields"])
}
