package ramps

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// owner is a Safe owner key the test signs with.
type owner = harness.Owner

// newWallet creates a one-owner wallet and waits until its Safe is DEPLOYED.
func newWallet(t *testing.T, c *harness.Client, o owner) string {
	t.Helper()
	created := c.Post("/v1/wallets", map[string]any{"name": "ramps test",
		"owners": []any{map[string]any{"address": o.Address.Hex(), "role": "FINANCE_OWNER"}}, "threshold": 1}).Expect(t, 201).JSON(t)
	id := created["id"].(string)
	c.WaitWalletDeployed(t, id)
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

// poll calls get until done holds (harness.Poll's limit).
func poll(t *testing.T, get func() map[string]any, done func(map[string]any) bool) map[string]any {
	t.Helper()
	return harness.Poll(t, "the awaited state", get, done)
}

// sign signs the payment with o and expects the signature accepted.
func sign(t *testing.T, c *harness.Client, paymentID string, o owner) {
	t.Helper()
	c.SignPayment(t, paymentID, o).Expect(t, 200)
}
