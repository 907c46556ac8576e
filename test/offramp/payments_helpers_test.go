package offramp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
)

// pair is a sender with a funded service balance and a recipient whose phone is verified.
type pair struct {
	sender, recipient *harness.Tenant
	phone             string
}

func deposit(t *testing.T, c *harness.Client, amountUSD string) {
	t.Helper()
	c.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": amountUSD}).Expect(t, 201)
}

// newPair funds the sender with fundUSD (none when empty) and verifies a fresh phone for an
// onboarded recipient.
func newPair(t *testing.T, fundUSD string) pair {
	t.Helper()
	p := pair{sender: env().NewTenant(t), recipient: onboarded(t), phone: harness.Phone("415")}
	if fundUSD != "" {
		deposit(t, p.sender.Root, fundUSD)
	}
	verifiedAlias(t, p.recipient.Root, p.phone)
	return p
}

// destination adds a payout destination of the recipient and returns its id.
func destination(t *testing.T, c *harness.Client, body map[string]any) string {
	t.Helper()
	return c.Post("/v1/payout-destinations", body).Expect(t, 201).JSON(t)["id"].(string)
}

var (
	serviceBalance = map[string]any{"type": "SERVICE_BALANCE"}
	walletA        = map[string]any{"type": "APP_WALLET_A", "email": "recipient@example.com"}
)

func (p pair) create(t *testing.T, amountUSD string, extra map[string]any) *harness.Response {
	t.Helper()
	body := map[string]any{"phone": p.phone, "amountUsd": amountUSD}
	for k, v := range extra {
		body[k] = v
	}
	return p.sender.Root.Post("/v1/offramp/payments", body)
}

func get(t *testing.T, c *harness.Client, id string) map[string]any {
	t.Helper()
	return c.Get("/v1/offramp/payments/"+id).Expect(t, 200).JSON(t)
}

// waitStatus polls GET until the payment reaches want (the provider jobs run in the
// background), failing after 15 s.
func waitStatus(t *testing.T, c *harness.Client, id, want string) map[string]any {
	t.Helper()
	return harness.Poll(t, "payment "+id+" "+want, func() map[string]any { return get(t, c, id) },
		func(p map[string]any) bool { return p["status"] == want })
}

// selectAndConfirm has the recipient select the first quote and confirm.
func selectAndConfirm(t *testing.T, p pair, id string) map[string]any {
	t.Helper()
	routes := p.recipient.Root.Get("/v1/offramp/payments/"+id+"/routes").Expect(t, 200).JSON(t)["routes"].([]any)
	if len(routes) == 0 {
		t.Fatalf("no routes for %s", id)
	}
	rid := routes[0].(map[string]any)["routeId"].(string)
	sel := p.recipient.Root.Post("/v1/offramp/payments/"+id+"/select-route", map[string]any{"routeQuoteId": rid}).Expect(t, 200).JSON(t)
	if sel["selectedRouteQuoteId"] != rid || sel["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("select: %v", sel)
	}
	c := p.recipient.Root.Post("/v1/offramp/payments/"+id+"/confirm", nil).Expect(t, 200).JSON(t)
	if c["status"] != "FUNDS_LOCKED" {
		t.Fatalf("confirm: %v", c)
	}
	return c
}

// trialBalanceZero checks the whole TEST ledger sums to zero and the tenants' trial balances
// are balanced.
func trialBalanceZero(t *testing.T, tenants ...*harness.Tenant) {
	t.Helper()
	harness.ExpectLedgerBalanced(t, env().DatabaseURL, tenants...)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func sleep() { time.Sleep(40 * time.Millisecond) }
