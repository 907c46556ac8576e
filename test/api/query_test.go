package api

import (
	"testing"
)

// TestQuery_UnknownParameters: a query parameter a route does not declare answers 400
// VALIDATION_FAILED naming it, so a misspelt filter is never silently ignored; declared ones
// still work, and a route with none refuses any.
func TestQuery_UnknownParameters(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	t.Run("a misspelt filter is refused and named", func(t *testing.T) {
		e := ten.Root.Get("/v1/faucet/drips?wallet_id=wal_x").ExpectError(t, 400, "VALIDATION_FAILED")
		if e["details"].(map[string]any)["fields"].(map[string]any)["wallet_id"] == nil {
			t.Fatalf("details do not name wallet_id: %v", e)
		}
	})
	t.Run("every unknown parameter is named beside declared ones", func(t *testing.T) {
		e := ten.Root.Get("/v1/wallets?take=5&limit=5&order=asc").ExpectError(t, 400, "VALIDATION_FAILED")
		fields := e["details"].(map[string]any)["fields"].(map[string]any)
		if fields["limit"] == nil || fields["order"] == nil || fields["take"] != nil {
			t.Fatalf("fields %v, want limit and order only", fields)
		}
	})
	t.Run("a route without parameters refuses any", func(t *testing.T) {
		ten.Root.Get("/v1/tenants/current?expand=members").ExpectError(t, 400, "VALIDATION_FAILED")
	})
	t.Run("declared parameters are accepted", func(t *testing.T) {
		ten.Root.Get("/v1/wallets?take=5&skip=0").Expect(t, 200)
		ten.Root.Get("/v1/tenants/current").Expect(t, 200)
	})
}
