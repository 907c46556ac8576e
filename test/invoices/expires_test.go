package invoices

import (
	"strings"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestInvoices_BadExpiresAtNamesItsField: a bad expiresAt is refused on its own field with a
// plain message, never as "body" with Go's time layout, and creates nothing.
func TestInvoices_BadExpiresAtNamesItsField(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	for _, bad := range []string{"tomorrow", "2026-12-31", "2026-12-31T23:59:59"} {
		r := ten.Root.Post("/v1/invoices", map[string]any{"amountUsd": "5",
			"payerAddress": "0x1111111111111111111111111111111111111111",
			"payeeAddress": "0x2222222222222222222222222222222222222222", "expiresAt": bad})
		m := r.ExpectError(t, 400, "VALIDATION_FAILED")
		if harness.Field(m, "expiresAt") == "" || harness.Field(m, "body") != "" ||
			strings.Contains(string(r.Body), "2006") || strings.Contains(string(r.Body), "parsing time") {
			t.Fatalf("expiresAt %q: %s", bad, r.Body)
		}
	}
	if total := ten.Root.Get("/v1/invoices").Expect(t, 200).JSON(t)["total"].(float64); total != 0 {
		t.Fatal("a refused invoice was created")
	}
}
