package invoices

import (
	"strings"
	"testing"
	"time"

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

// TestInvoices_ClockHelperIsBounded: the sandbox clock helper moves an invoice's clock at most
// a hundred of its one-year steps ahead in all; an advance past that is 400 VALIDATION_FAILED
// on seconds. Unbounded, repeated advances ran the offset past what a time.Duration holds
// (about 292 years): the invoice's clock wrapped into the past, and a FUNDED invoice refused
// release after its expiry could be released again.
func TestInvoices_ClockHelperIsBounded(t *testing.T) {
	ten := env().NewTenant(t)
	inv := createInvoice(t, ten.Root, newKey(t), newKey(t), "5", map[string]any{"expiresAt": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	path := "/v1/sandbox/invoices/" + inv["invoiceId"].(string) + "/advance"
	for i := 0; i < 100; i++ {
		ten.Root.Post(path, map[string]any{"seconds": 366 * 24 * 3600}).Expect(t, 200)
	}
	refused := ten.Root.Post(path, map[string]any{"seconds": 1}).ExpectError(t, 400, "VALIDATION_FAILED")
	if harness.Field(refused, "seconds") == "" {
		t.Fatalf("the refusal names no seconds: %v", refused)
	}
}
