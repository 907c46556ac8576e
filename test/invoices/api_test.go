package invoices

import (
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

func TestInvoice_Validation(t *testing.T) {
	ten := env().NewTenant(t)
	a, b := newKey(t).address.Hex(), newKey(t).address.Hex()
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"payer is payee", map[string]any{"amountUsd": "1", "payerAddress": a, "payeeAddress": a}, "payeeAddress"},
		{"arbiter is payer", map[string]any{"amountUsd": "1", "payerAddress": a, "payeeAddress": b, "arbiterAddress": a}, "arbiterAddress"},
		{"arbiter is payee", map[string]any{"amountUsd": "1", "payerAddress": a, "payeeAddress": b, "arbiterAddress": strings.ToLower(b)}, "arbiterAddress"},
		{"zero amount", map[string]any{"amountUsd": "0", "payerAddress": a, "payeeAddress": b}, "amountUsd"},
		{"negative amount", map[string]any{"amountUsd": "-1", "payerAddress": a, "payeeAddress": b}, "amountUsd"},
		{"seven decimals", map[string]any{"amountUsd": "1.0000001", "payerAddress": a, "payeeAddress": b}, "amountUsd"},
		{"amount with a leading space", map[string]any{"amountUsd": " 1", "payerAddress": a, "payeeAddress": b}, "amountUsd"},
		{"amount with a trailing newline", map[string]any{"amountUsd": "1\n", "payerAddress": a, "payeeAddress": b}, "amountUsd"},
		{"missing amount", map[string]any{"payerAddress": a, "payeeAddress": b}, "amountUsd"},
		{"missing payer", map[string]any{"amountUsd": "1", "payeeAddress": b}, "payerAddress"},
		{"bad payee", map[string]any{"amountUsd": "1", "payerAddress": a, "payeeAddress": "0x12"}, "payeeAddress"},
		{"past expiry", map[string]any{"amountUsd": "1", "payerAddress": a, "payeeAddress": b, "expiresAt": time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)}, "expiresAt"},
		{"other chain", map[string]any{"amountUsd": "1", "payerAddress": a, "payeeAddress": b, "chainId": 8453}, "chainId"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := ten.Root.Post("/v1/invoices", c.body).ExpectError(t, 400, "VALIDATION_FAILED")
			if !strings.Contains(fields(e), c.field) {
				t.Fatalf("fields %s, want %s", fields(e), c.field)
			}
		})
	}
	if n := ten.Root.Get("/v1/invoices").Expect(t, 200).JSON(t)["total"]; n != float64(0) {
		t.Fatalf("refused creates left %v invoices", n)
	}
	ten.Root.Post("/v1/invoices/"+"inv_missing"+"/deliver", map[string]any{"evidence": strings.Repeat("x", 4001)}).ExpectError(t, 400, "VALIDATION_FAILED")
}

// TestInvoice_OtherTenantAndLive: another tenant's invoice is 404 everywhere, the public view
// shows it to anyone, and a LIVE key is refused SANDBOX_ONLY.
func TestInvoice_OtherTenantAndLive(t *testing.T) {
	owner, other := env().NewTenant(t), env().NewTenant(t)
	inv := createInvoice(t, owner.Root, newKey(t), newKey(t), "2", nil)
	id := inv["invoiceId"].(string)
	other.Root.Get("/v1/invoices/"+id).ExpectError(t, 404, "INVOICE_NOT_FOUND")
	other.Root.Post("/v1/invoices/"+id+"/send", nil).ExpectError(t, 404, "INVOICE_NOT_FOUND")
	other.Root.Post("/v1/invoices/"+id+"/cancel", nil).ExpectError(t, 404, "INVOICE_NOT_FOUND")
	if list := other.Root.Get("/v1/invoices").Expect(t, 200).JSON(t); list["total"] != float64(0) {
		t.Fatalf("other tenant lists %v", list)
	}
	env().Client(t).Get("/v1/invoices/public/inv_missing").ExpectError(t, 404, "INVOICE_NOT_FOUND")
	live := env().Client(t).WithKey(env().NewKey(t, owner.Session, map[string]any{"name": "live", "environment": "live", "scopes": []string{"*"}}))
	live.Post("/v1/invoices", map[string]any{"amountUsd": "1", "payerAddress": newKey(t).address.Hex(), "payeeAddress": newKey(t).address.Hex()}).
		ExpectError(t, 403, "SANDBOX_ONLY")
	if got := owner.Root.Get("/v1/invoices").Expect(t, 200).JSON(t); got["total"] != float64(1) {
		t.Fatalf("list: %v", got)
	}
}

// TestInvoice_CancelRules: DRAFT and an empty SENT cancel; funds that arrived before the poller
// saw them forbid it; CANCELLED is terminal.
func TestInvoice_CancelRules(t *testing.T) {
	ten := env().NewTenant(t)
	draft := createInvoice(t, ten.Root, newKey(t), newKey(t), "1", nil)
	did := draft["invoiceId"].(string)
	if got := ten.Root.Post("/v1/invoices/"+did+"/cancel", nil).Expect(t, 200).JSON(t); got["status"] != "CANCELLED" {
		t.Fatalf("cancel DRAFT: %v", got)
	}
	ten.Root.Post("/v1/invoices/"+did+"/send", nil).ExpectError(t, 409, "INVALID_STATE")
	ten.Root.Post("/v1/invoices/"+did+"/cancel", nil).ExpectError(t, 409, "INVALID_STATE")

	empty := createInvoice(t, ten.Root, newKey(t), newKey(t), "1", nil)
	eid := empty["invoiceId"].(string)
	ten.Root.Post("/v1/invoices/"+eid+"/send", nil).Expect(t, 202)
	if got := ten.Root.Post("/v1/invoices/"+eid+"/cancel", nil).Expect(t, 200).JSON(t); got["status"] != "CANCELLED" {
		t.Fatalf("cancel empty SENT: %v", got)
	}

	paid := createInvoice(t, ten.Root, newKey(t), newKey(t), "2", nil)
	pid := paid["invoiceId"].(string)
	sent := sendInvoice(t, ten.Root, pid)
	fund(t, ten.Root, sent, "1")
	e := ten.Root.Post("/v1/invoices/"+pid+"/cancel", nil).ExpectError(t, 409, "INVALID_STATE")
	if d, _ := e["details"].(map[string]any); d["reason"] != "FUNDS_ARRIVED" {
		t.Fatalf("cancel with funds: %v", e)
	}
	if got := ten.Root.Get("/v1/invoices/"+pid).Expect(t, 200).JSON(t); got["status"] != "SENT" {
		t.Fatalf("after refused cancel: %v", got)
	}
}

// TestInvoice_IdempotentCreate: one Idempotency-Key creates one invoice.
func TestInvoice_IdempotentCreate(t *testing.T) {
	ten := env().NewTenant(t)
	body := map[string]any{"amountUsd": "4", "payerAddress": newKey(t).address.Hex(), "payeeAddress": newKey(t).address.Hex()}
	c := ten.Root.With("Idempotency-Key", "inv-create-1")
	first := c.Post("/v1/invoices", body).Expect(t, 201).JSON(t)
	second := c.Post("/v1/invoices", body).Expect(t, 201).JSON(t)
	if first["invoiceId"] != second["invoiceId"] {
		t.Fatalf("two invoices: %v %v", first, second)
	}
	if n := ten.Root.Get("/v1/invoices").Expect(t, 200).JSON(t)["total"]; n != float64(1) {
		t.Fatalf("total %v", n)
	}
}

// TestInvoice_PublicViewRateLimited: the public view is limited per client IP.
func TestInvoice_PublicViewRateLimited(t *testing.T) {
	ten := env().NewTenant(t)
	id := createInvoice(t, ten.Root, newKey(t), newKey(t), "1", nil)["invoiceId"].(string)
	tight := harness.NewServer(t, func(c *wiring.Config) { c.RateLimit = http.RateLimit{PerSecond: 0.01, Burst: 2} })
	anon := tight.Client(t)
	anon.Get("/v1/invoices/public/"+id).Expect(t, 200)
	anon.Get("/v1/invoices/public/"+id).Expect(t, 200)
	anon.Get("/v1/invoices/public/"+id).ExpectError(t, 429, "RATE_LIMITED")
}
