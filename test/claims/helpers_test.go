package claims

import (
	"strings"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// onboarded is a tenant with an ACTIVE credential and a SERVICE_BALANCE destination.
func onboarded(t *testing.T) (*harness.Tenant, string) {
	t.Helper()
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	d := ten.Root.Post("/v1/payout-destinations", map[string]any{"type": "SERVICE_BALANCE"}).Expect(t, 201).JSON(t)
	return ten, d["id"].(string)
}

func funded(t *testing.T, usd string) *harness.Tenant {
	t.Helper()
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": usd}).Expect(t, 201)
	return ten
}

// noPhone fails when any text carries the full number (E.164 or national digits).
func noPhone(t *testing.T, phone string, texts ...string) {
	t.Helper()
	national := strings.TrimPrefix(phone, "+1")
	for _, s := range texts {
		if strings.Contains(s, national) {
			t.Fatalf("the full phone number appears in: %s", s)
		}
	}
}
