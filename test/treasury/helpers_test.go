package treasury

import (
	"fmt"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// owner is a Safe owner key the test signs with.
type owner = harness.Owner

func ownersBody(owners ...owner) []map[string]any {
	out := make([]map[string]any, len(owners))
	for i, o := range owners {
		out[i] = map[string]any{"address": o.Address.Hex(), "role": "FINANCE_OWNER"}
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
	c.Fund(t, b["walletId"].(string), amount)
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
