package payouts

import (
	"regexp"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
)

var codeInBody = regexp.MustCompile(`\b(\d{6})\b`)

// pair is a funded sender and an onboarded recipient whose phone is verified.
type pair struct {
	sender, recipient *harness.Tenant
	phone             string
}

func newPair(t *testing.T, fundUSD string) pair {
	t.Helper()
	p := pair{sender: env().NewTenant(t), recipient: env().NewTenant(t), phone: harness.Phone("312")}
	p.sender.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": fundUSD}).Expect(t, 201)
	c := p.recipient.Root
	c.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	a := c.Post("/v1/phone-aliases", map[string]any{"phone": p.phone}).Expect(t, 201).JSON(t)
	msgs := c.Get("/v1/sandbox/sms-messages?take=1").Expect(t, 200).JSON(t)["messages"].([]any)
	code := codeInBody.FindStringSubmatch(msgs[0].(map[string]any)["body"].(string))[1]
	c.Post("/v1/phone-aliases/"+a["id"].(string)+"/verify", map[string]any{"code": code}).Expect(t, 200)
	return p
}

func (p pair) create(t *testing.T, amountUSD string) map[string]any {
	t.Helper()
	return p.sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": amountUSD}).Expect(t, 201).JSON(t)
}

// selectAndConfirm has the recipient select the quote of provider and confirm.
func selectAndConfirm(t *testing.T, p pair, id, provider string) map[string]any {
	t.Helper()
	return harness.ConfirmRoute(t, p.recipient.Root, id, provider)
}

func waitStatus(t *testing.T, c *harness.Client, id, want string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		p := c.Get("/v1/offramp/payments/"+id).Expect(t, 200).JSON(t)
		if p["status"] == want {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("payment %s is %v, want %s: %v", id, p["status"], want, p)
		}
		time.Sleep(40 * time.Millisecond)
	}
}

// ledgerSumZero checks the whole TEST ledger sums to zero and the tenants' trial balances
// balance.
func ledgerSumZero(t *testing.T, tenants ...*harness.Tenant) {
	t.Helper()
	harness.ExpectLedgerBalanced(t, env().DatabaseURL, tenants...)
}
