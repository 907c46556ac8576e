package invoices

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/test/harness"
)

type key struct {
	priv    *ecdsa.PrivateKey
	address common.Address
}

func newKey(t *testing.T) key {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return key{priv: k, address: crypto.PubkeyToAddress(k.PublicKey)}
}

// createInvoice creates a DRAFT invoice of amountUsd from payer to payee.
func createInvoice(t *testing.T, c *harness.Client, payer, payee key, amountUsd string, extra map[string]any) map[string]any {
	t.Helper()
	body := map[string]any{"amountUsd": amountUsd, "payerAddress": payer.address.Hex(), "payeeAddress": payee.address.Hex(),
		"payeeName": "Acme", "description": "widgets"}
	for k, v := range extra {
		body[k] = v
	}
	inv := c.Post("/v1/invoices", body).Expect(t, 201).JSON(t)
	if inv["status"] != "DRAFT" || inv["holdAddress"] != nil || inv["amountUsd"] != amountUsd {
		t.Fatalf("created: %v", inv)
	}
	return inv
}

// sendInvoice sends it and waits until the hold Safe is DEPLOYED.
func sendInvoice(t *testing.T, c *harness.Client, id string) map[string]any {
	t.Helper()
	sent := c.Post("/v1/invoices/"+id+"/send", nil).Expect(t, 202).JSON(t)
	if sent["status"] != "SENT" || sent["holdAddress"] == nil || sent["holdWalletId"] == nil {
		t.Fatalf("sent: %v", sent)
	}
	w := harness.Poll(t, "the hold Safe deploys", func() map[string]any {
		return c.Get("/v1/wallets/"+sent["holdWalletId"].(string)).Expect(t, 200).JSON(t)
	}, func(m map[string]any) bool { return m["status"] == "DEPLOYED" })
	if w["address"] != sent["holdAddress"] || w["threshold"] != float64(2) || len(w["owners"].([]any)) != 3 {
		t.Fatalf("hold Safe: %v", w)
	}
	return sent
}

// fund drips USDC from the faucet into the hold Safe and waits for it to land.
func fund(t *testing.T, c *harness.Client, inv map[string]any, amount string) {
	t.Helper()
	drip := c.Post("/v1/wallets/"+inv["holdWalletId"].(string)+"/fund", map[string]any{"asset": "usdc", "amount": amount}).Expect(t, 201).JSON(t)
	got := harness.Poll(t, "the drip lands", func() map[string]any { return c.Get("/v1/faucet/drips/"+drip["id"].(string)).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] != "SUBMITTED" })
	if got["status"] != "CONFIRMED" {
		t.Fatalf("drip: %v", got)
	}
}

// pollNow runs the balance poller on the invoice (the clock helper, one second ahead) and
// waits until its status leaves from.
func pollNow(t *testing.T, c *harness.Client, id string, seconds int, from string) map[string]any {
	t.Helper()
	c.Post("/v1/sandbox/invoices/"+id+"/advance", map[string]any{"seconds": seconds}).Expect(t, 200)
	return harness.Poll(t, "invoice "+id+" leaves "+from, func() map[string]any { return c.Get("/v1/invoices/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] != from })
}

// signPayment signs a Safe payment's safeTxHash with k through the payments API.
func signPayment(t *testing.T, c *harness.Client, paymentID string, k key) map[string]any {
	t.Helper()
	pay := c.Get("/v1/payments/"+paymentID).Expect(t, 200).JSON(t)
	sig, err := safe.Sign(common.HexToHash(pay["safeTxHash"].(string)), k.priv)
	if err != nil {
		t.Fatal(err)
	}
	return c.Post("/v1/payments/"+paymentID+"/sign", map[string]any{"signature": sig.Hex()}).Expect(t, 200).JSON(t)
}

// arbiterSign has the platform arbiter sign through the operator route.
func arbiterSign(t *testing.T, id string) map[string]any {
	t.Helper()
	return env().Client(t).With("X-Operator-Token", harness.OperatorToken).Post("/v1/admin/invoices/"+id+"/arbiter-sign", nil).Expect(t, 200).JSON(t)
}

func waitPayment(t *testing.T, c *harness.Client, id, status string) map[string]any {
	t.Helper()
	return harness.Poll(t, "payment "+id+" "+status, func() map[string]any { return c.Get("/v1/payments/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == status || m["status"] == "FAILED" })
}

func usdcBalance(t *testing.T, a common.Address) int64 {
	t.Helper()
	bal, err := env().Chain.USDCBalance(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return bal.Int64()
}

// zeroDrift waits until every wallet of the tenant reconciles with the chain.
func zeroDrift(t *testing.T, c *harness.Client) map[string]any {
	t.Helper()
	return harness.Poll(t, "zero drift", func() map[string]any { return c.Get("/v1/ledger/reconciliation").Expect(t, 200).JSON(t) },
		func(m map[string]any) bool {
			for _, w := range m["wallets"].([]any) {
				if w.(map[string]any)["drift"] != "0" {
					return false
				}
			}
			return m["totals"].(map[string]any)["drift"] == "0"
		})
}

func fields(e map[string]any) string {
	details, _ := e["details"].(map[string]any)
	return fmt.Sprint(details["fields"])
}

func future(d time.Duration) string { return time.Now().Add(d).UTC().Format(time.RFC3339) }
