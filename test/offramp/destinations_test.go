package offramp

import (
	"strings"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func onboarded(t *testing.T) *harness.Tenant {
	t.Helper()
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	return ten
}

func TestDestinations_RequireActiveCredential(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	body := map[string]any{"type": "SERVICE_BALANCE"}
	ten.Root.Post("/v1/payout-destinations", body).ExpectError(t, 403, "CREDENTIAL_REQUIRED")
	for _, st := range []string{"EXPIRED", "REVOKED", "SUSPENDED"} {
		ten.Root.Post("/v1/sandbox/credentials", map[string]any{"status": st}).Expect(t, 200)
		ten.Root.Post("/v1/payout-destinations", body).ExpectError(t, 403, "CREDENTIAL_REQUIRED")
	}
	ten.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	d := ten.Root.Post("/v1/payout-destinations", body).Expect(t, 201).JSON(t)
	if d["status"] != "ACTIVE" || d["type"] != "SERVICE_BALANCE" || d["allowAutomaticFallback"] != false || !strings.HasPrefix(d["id"].(string), "dst_") {
		t.Fatalf("service balance destination %v", d)
	}
}

func TestDestinations_EveryType(t *testing.T) {
	t.Parallel()
	ten := onboarded(t)
	addr := "0xAbCdEf0123456789abcdef0123456789ABCDEF01"
	ok := []struct {
		body   map[string]any
		masked string
		secret string
	}{
		{map[string]any{"type": "ONCHAIN_WALLET", "asset": "USDC", "network": "eip155:84532", "address": addr, "allowAutomaticFallback": true}, "USDC on eip155:84532 0xAbCd…EF01", "0123456789abcdef0123456789"},
		{map[string]any{"type": "APP_WALLET_A", "email": "jane.doe@example.com"}, "j•••@example.com", "jane.doe"},
		{map[string]any{"type": "APP_WALLET_A", "phone": "+14155552671"}, "+1 ••••••••71", "4155552671"},
		{map[string]any{"type": "APP_WALLET_B", "handle": "janedoe"}, "@j•••", "janedoe"},
		{map[string]any{"type": "APP_WALLET_B", "phone": "+14155552671", "country": "US", "currency": "USD"}, "+1 ••••••••71", "4155552671"},
		{map[string]any{"type": "US_BANK_ACH", "routingNumber": "021000021", "accountNumber": "000123456789"}, "ACH ••••6789", "000123456789"},
		{map[string]any{"type": "SEPA", "iban": "DE89370400440532013000"}, "DE•• •••• 3000", "370400440532013000"},
	}
	ids := []string{}
	for _, c := range ok {
		resp := ten.Root.Post("/v1/payout-destinations", c.body).Expect(t, 201)
		d := resp.JSON(t)
		if d["maskedLabel"] != c.masked || d["status"] != "ACTIVE" || strings.Contains(string(resp.Body), c.secret) {
			t.Fatalf("%v: %s", c.body["type"], resp.Body)
		}
		routable := c.body["type"] != "US_BANK_ACH" && c.body["type"] != "SEPA"
		if d["routable"] != routable || d["allowAutomaticFallback"] != (c.body["allowAutomaticFallback"] == true) {
			t.Fatalf("%v: %v", c.body["type"], d)
		}
		ids = append(ids, d["id"].(string))
	}
	list := ten.Root.Get("/v1/payout-destinations").Expect(t, 200)
	l := list.JSON(t)
	if l["total"] != float64(len(ok)) {
		t.Fatalf("list %v", l)
	}
	for _, c := range ok {
		if strings.Contains(string(list.Body), c.secret) {
			t.Fatalf("list leaks %q", c.secret)
		}
	}
	got := ten.Root.Get("/v1/payout-destinations/"+ids[0]).Expect(t, 200).JSON(t)
	if got["id"] != ids[0] || got["type"] != "ONCHAIN_WALLET" {
		t.Fatalf("get %v", got)
	}
	env().NewTenant(t).Root.Get("/v1/payout-destinations/"+ids[0]).ExpectError(t, 404, "PAYOUT_DESTINATION_NOT_FOUND")
	// Identifiers are immutable: there is no update route.
	if r := ten.Root.Do("PATCH", "/v1/payout-destinations/"+ids[0], map[string]any{"address": addr}); r.Status != 405 && r.Status != 404 {
		t.Fatalf("PATCH answered %d", r.Status)
	}
}

func TestDestinations_Refusals(t *testing.T) {
	t.Parallel()
	ten := onboarded(t)
	cases := []struct {
		body   map[string]any
		status int
		code   string
	}{
		{map[string]any{"type": "ONCHAIN_WALLET", "asset": "USDC", "network": "eip155:84532", "address": "0x1234"}, 400, "VALIDATION_FAILED"},
		{map[string]any{"type": "ONCHAIN_WALLET", "asset": "USDC", "network": "solana", "address": "0xAbCdEf0123456789abcdef0123456789ABCDEF01"}, 400, "VALIDATION_FAILED"},
		{map[string]any{"type": "APP_WALLET_A", "email": "a@example.com", "phone": "+14155552671"}, 400, "VALIDATION_FAILED"},
		{map[string]any{"type": "APP_WALLET_A"}, 400, "VALIDATION_FAILED"},
		{map[string]any{"type": "APP_WALLET_B", "phone": "+14155552671", "handle": "jane"}, 400, "VALIDATION_FAILED"},
		{map[string]any{"type": "APP_WALLET_B", "phone": "+447911123456"}, 422, "DESTINATION_RAIL_CONSTRAINT"},
		{map[string]any{"type": "APP_WALLET_B", "handle": "jane", "currency": "EUR"}, 422, "DESTINATION_RAIL_CONSTRAINT"},
		{map[string]any{"type": "APP_WALLET_C", "handle": "jane"}, 400, "VALIDATION_FAILED"},
		{map[string]any{"type": "PAYPAL", "email": "a@example.com"}, 422, "DESTINATION_RAIL_NOT_AVAILABLE"},
		{map[string]any{"type": "US_BANK_ACH", "routingNumber": "123456789", "accountNumber": "1234"}, 400, "VALIDATION_FAILED"},
		{map[string]any{"type": "SEPA", "iban": "DE00370400440532013000"}, 400, "VALIDATION_FAILED"},
		{map[string]any{"type": "SERVICE_BALANCE", "unknownField": 1}, 400, "VALIDATION_FAILED"},
	}
	for _, c := range cases {
		ten.Root.Post("/v1/payout-destinations", c.body).ExpectError(t, c.status, c.code)
	}
	if l := ten.Root.Get("/v1/payout-destinations").Expect(t, 200).JSON(t); l["total"] != float64(0) {
		t.Fatalf("a refused destination was stored: %v", l)
	}
}
