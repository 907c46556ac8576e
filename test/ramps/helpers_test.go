package ramps

import (
	"crypto/ecdsa"
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

// newWallet creates a one-owner wallet and waits until its Safe is DEPLOYED.
func newWallet(t *testing.T, c *harness.Client, o owner) string {
	t.Helper()
	created := c.Post("/v1/wallets", map[string]any{"name": "ramps test",
		"owners": []any{map[string]any{"address": o.address.Hex(), "role": "FINANCE_OWNER"}}, "threshold": 1}).Expect(t, 201).JSON(t)
	id := created["id"].(string)
	got := poll(t, func() map[string]any { return c.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "DEPLOYED" || m["status"] == "FAILED" })
	if got["status"] != "DEPLOYED" {
		t.Fatalf("wallet did not deploy: %v", got)
	}
	return id
}

func onRamp(walletID, amount string) map[string]any {
	return map[string]any{"walletId": walletID, "direction": "on", "amount": amount}
}

// waitRamp polls the ramp until it leaves SUBMITTED.
func waitRamp(t *testing.T, c *harness.Client, id string) map[string]any {
	t.Helper()
	return poll(t, func() map[string]any { return c.Get("/v1/ramps/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] != "SUBMITTED" })
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

// waitMirror waits until the reconciliation shows the wallet's ledger balance at want with
// zero drift, and every wallet of the tenant at zero drift.
func waitMirror(t *testing.T, c *harness.Client, walletID, want string) map[string]any {
	t.Helper()
	return poll(t, func() map[string]any { return c.Get("/v1/ledger/reconciliation").Expect(t, 200).JSON(t) },
		func(m map[string]any) bool {
			found := false
			for _, w := range m["wallets"].([]any) {
				w := w.(map[string]any)
				if w["drift"] != "0" {
					return false
				}
				if w["walletId"] == walletID {
					found = w["ledgerBalance"] == want && w["onchainBalance"] == want
				}
			}
			return found
		})
}

// poll calls get until done holds, for up to 60 s.
func poll(t *testing.T, get func() map[string]any, done func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		m := get()
		if done(m) {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting; last: %v", m)
		}
		time.Sleep(150 * time.Millisecond)
	}
}
