package checkout

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestCheckout_JourneyWithSignedWebhooks: created → pending (seen, not deep enough) →
// completed (confirmed), each state a webhook signed with the documented recipe; the amount
// lands on the merchant's service balance and the deposit address is swept. Not parallel: it
// mines blocks itself and needs no other test's blocks between payment and pending.
func TestCheckout_JourneyWithSignedWebhooks(t *testing.T) {
	ten := env().NewTenant(t)
	rcv := harness.NewWebhookReceiver(t, 0)
	secret := endpoint(t, ten.Root, rcv.URL(), "payment.created", "payment.pending", "payment.completed")

	c := create(t, ten.Root, 12.5)
	id := c["id"].(string)
	switch {
	case !strings.HasPrefix(id, "chk_"), c["amount"] != 12.5, c["currency"] != "USD", c["cryptocurrency"] != "USDC",
		c["crypto_amount"] != "12.500000", c["status"] != "created", c["payment_url"] != env().BaseURL+"/pay/"+id,
		c["qr_code"] != env().BaseURL+"/pay/"+id+"/qr.png", c["expires_at"] == nil:
		t.Fatalf("created: %v", c)
	}
	if uri := c["payment_uri"].(string); !strings.HasPrefix(uri, "ethereum:"+env().Chain.USDCAddress().Hex()+"@84532/transfer?address="+c["deposit_address"].(string)+"&uint256=12500000") {
		t.Fatalf("payment_uri %s", uri)
	}
	got := get(t, ten.Root, id)
	if got["status"] != "created" || got["transaction_hash"] != nil || got["confirmations"] != float64(0) || got["completed_at"] != nil {
		t.Fatalf("before payment: %v", got)
	}
	// The customer given at creation is kept for the merchant, and read back.
	if cu, _ := got["customer"].(map[string]any); cu["email"] != "payer@example.com" || cu["name"] != "Pat Payer" {
		t.Fatalf("customer: %v", got["customer"])
	}

	deposit := c["deposit_address"].(string)
	pay(t, deposit, 12_500_000)
	pending := waitStatus(t, ten.Root, id, "pending")
	if pending["transaction_hash"] == nil || pending["completed_at"] != nil {
		t.Fatalf("pending: %v", pending)
	}
	mine(t, confirmations)
	done := waitStatus(t, ten.Root, id, "completed")
	if done["completed_at"] == nil || done["confirmations"].(float64) < confirmations || done["amount_received"] != "12.500000" {
		t.Fatalf("completed: %v", done)
	}

	deliveries := rcv.Wait(t, 3)
	seen := map[string]bool{}
	for _, d := range deliveries {
		if !harness.VerifyWebhookSignature(secret, d.Signature, d.Body) {
			t.Fatalf("delivery %s: the signature does not verify", d.Body)
		}
		data := d.Event["data"].(map[string]any)
		if data["id"] != id || d.Event["event"] != d.Event["type"] || data["amount"] != "12.5" {
			t.Fatalf("delivery: %s", d.Body)
		}
		// The merchant's metadata and customer ride every event, so a webhook finds its order.
		meta, _ := data["metadata"].(map[string]any)
		cu, _ := data["customer"].(map[string]any)
		if meta["order"] != "42" || cu["email"] != "payer@example.com" || cu["name"] != "Pat Payer" {
			t.Fatalf("delivery without the merchant's metadata and customer: %s", d.Body)
		}
		seen[d.Event["type"].(string)] = true
	}
	for _, typ := range []string{"payment.created", "payment.pending", "payment.completed"} {
		if !seen[typ] {
			t.Fatalf("no %s among %v", typ, seen)
		}
	}

	harness.Poll(t, "the deposit swept", func() map[string]any { return map[string]any{"balance": usdcBalance(t, deposit)} },
		func(m map[string]any) bool { return m["balance"] == int64(0) })
	if available, _ := harness.ServiceBalance(t, ten.Root); available != 12_500_000 {
		t.Fatalf("service balance %d, want 12500000", available)
	}
	harness.ExpectLedgerBalanced(t, env().DatabaseURL, ten)
}

// TestCheckout_ExpiredUnpaidFails: a checkout unpaid at expires_at is failed (expired), with
// its event, and holds nothing to refund.
func TestCheckout_ExpiredUnpaidFails(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := create(t, ten.Root, 3)["id"].(string)
	ten.Root.Post("/v1/sandbox/payments/"+id+"/expire", nil).Expect(t, 200)
	failed := waitStatus(t, ten.Root, id, "failed")
	if failed["failure_reason"] != "expired" || failed["completed_at"] != nil {
		t.Fatalf("failed: %v", failed)
	}
	harness.Poll(t, "payment.failed", func() map[string]any {
		return map[string]any{"n": len(events(t, ten.Root, "payment.failed"))}
	}, func(m map[string]any) bool { return m["n"] == 1 })
	e := ten.Root.Post("/v1/payments/"+id+"/refund", map[string]any{"address": newAddress(t)}).Expect(t, 409).JSON(t)
	if e["error"].(map[string]any)["code"] != "checkout_nothing_to_refund" {
		t.Fatalf("refund of nothing: %v", e)
	}
	// A late payment after the failure does not revive it, but is credited and refundable.
	pay(t, failed["deposit_address"].(string), 1_000_000)
	mine(t, confirmations)
	late := harness.Poll(t, "late funds credited", func() map[string]any { return get(t, ten.Root, id) },
		func(m map[string]any) bool { return m["refundable"] == "1.000000" })
	if late["status"] != "failed" {
		t.Fatalf("late payment: %v", late)
	}
	harness.Poll(t, "late funds swept", func() map[string]any { return map[string]any{"b": usdcBalance(t, late["deposit_address"].(string))} },
		func(m map[string]any) bool { return m["b"] == int64(0) })
}

// TestCheckout_UnderAndOverPayment: the documented rule. Less than the amount by expiry fails
// the checkout as underpaid, what arrived being credited and refundable; more than the amount
// completes it, the whole amount received credited and the excess refundable.
func TestCheckout_UnderAndOverPayment(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)

	under := create(t, ten.Root, 10)
	pay(t, under["deposit_address"].(string), 4_000_000)
	mine(t, confirmations)
	harness.Poll(t, "underpayment credited", func() map[string]any { return get(t, ten.Root, under["id"].(string)) },
		func(m map[string]any) bool { return m["status"] == "pending" && m["refundable"] == "4.000000" })
	ten.Root.Post("/v1/sandbox/payments/"+under["id"].(string)+"/expire", nil).Expect(t, 200)
	failed := waitStatus(t, ten.Root, under["id"].(string), "failed")
	if failed["failure_reason"] != "underpaid" || failed["amount_received"] != "4.000000" {
		t.Fatalf("underpaid: %v", failed)
	}

	over := create(t, ten.Root, 5)
	pay(t, over["deposit_address"].(string), 7_000_000)
	mine(t, confirmations)
	done := waitStatus(t, ten.Root, over["id"].(string), "completed")
	if done["amount_received"] != "7.000000" {
		t.Fatalf("overpaid: %v", done)
	}
	harness.Poll(t, "overpayment credited", func() map[string]any { return get(t, ten.Root, over["id"].(string)) },
		func(m map[string]any) bool { return m["refundable"] == "7.000000" })
	if available, _ := harness.ServiceBalance(t, ten.Root); available != 11_000_000 {
		t.Fatalf("service balance %d, want 11000000 (4 underpaid + 7 overpaid)", available)
	}
}

// TestCheckout_RefundsIdempotentAndBounded: a refund retried with one key happens once; parallel
// refunds never take more than the checkout received; each processed refund pays its address
// on chain and records refund.processed.
func TestCheckout_RefundsIdempotentAndBounded(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	c := create(t, ten.Root, 10)
	id, deposit := c["id"].(string), c["deposit_address"].(string)
	pay(t, deposit, 10_000_000)
	mine(t, confirmations)
	waitStatus(t, ten.Root, id, "completed")
	harness.Poll(t, "swept", func() map[string]any { return map[string]any{"b": usdcBalance(t, deposit)} },
		func(m map[string]any) bool { return m["b"] == int64(0) })

	to := newAddress(t)
	first := ten.Root.With("Idempotency-Key", "refund-once").Post("/v1/payments/"+id+"/refund", map[string]any{"amount": 4, "address": to}).Expect(t, 201).JSON(t)
	again := ten.Root.With("Idempotency-Key", "refund-once").Post("/v1/payments/"+id+"/refund", map[string]any{"amount": 4, "address": to}).Expect(t, 201).JSON(t)
	if first["id"] != again["id"] || first["amount"] != "4.000000" || first["status"] != "pending" || first["payment_id"] != id {
		t.Fatalf("refund %v, retry %v", first, again)
	}

	var wg sync.WaitGroup
	statuses := make([]int, 5)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := ten.Root.With("Idempotency-Key", fmt.Sprintf("parallel-%d", i)).Post("/v1/payments/"+id+"/refund", map[string]any{"amount": 4, "address": to})
			statuses[i] = r.Status
		}()
	}
	wg.Wait()
	ok := 0
	for _, s := range statuses {
		switch s {
		case 201:
			ok++
		case 422:
		default:
			t.Fatalf("parallel refund answered %d", s)
		}
	}
	if ok != 1 {
		t.Fatalf("%d parallel refunds of 4 accepted with 6 refundable, want 1 (%v)", ok, statuses)
	}
	e := ten.Root.Post("/v1/payments/"+id+"/refund", map[string]any{"amount": 2.5, "address": to}).Expect(t, 422).JSON(t)
	if e["error"].(map[string]any)["code"] != "insufficient_funds" {
		t.Fatalf("over-refund: %v", e)
	}
	got := get(t, ten.Root, id)
	if got["amount_refunded"] != "8.000000" || got["refundable"] != "2.000000" {
		t.Fatalf("after refunds: %v", got)
	}

	harness.Poll(t, "refunds processed", func() map[string]any { return ten.Root.Get("/v1/payments/"+id+"/refunds").Expect(t, 200).JSON(t) },
		func(m map[string]any) bool {
			for _, r := range m["data"].([]any) {
				if r.(map[string]any)["status"] != "processed" {
					return false
				}
			}
			return len(m["data"].([]any)) == 2
		})
	if refunds := ten.Root.Get("/v1/payments/"+id+"/refunds").Expect(t, 200).JSON(t); refunds["total"] != float64(2) || refunds["has_more"] != false {
		t.Fatalf("refunds list without total/has_more: %v", refunds)
	}
	// The secondary transactions list shows the refunds (type=refund) and the completed
	// checkout (a payment received); neither moves a wallet.
	byType := ten.Root.Get("/v1/transactions?type=refund").Expect(t, 200).JSON(t)
	if byType["total"] != float64(2) || byType["has_more"] != false {
		t.Fatalf("type=refund: %v", byType)
	}
	for _, r := range byType["data"].([]any) {
		if r := r.(map[string]any); r["type"] != "refund" || r["status"] != "completed" || r["wallet_id"] != nil ||
			!strings.EqualFold(fmt.Sprint(r["counterparty"]), to) || r["transaction_hash"] == nil {
			t.Fatalf("refund row %v", r)
		}
	}
	received := ten.Root.Get("/v1/transactions?type=payment&status=completed").Expect(t, 200).JSON(t)
	if rows := received["data"].([]any); received["total"] != float64(1) || rows[0].(map[string]any)["id"] != id ||
		rows[0].(map[string]any)["amount"] != "10" && rows[0].(map[string]any)["amount"] != "10.000000" {
		t.Fatalf("completed checkout in /v1/transactions: %v", received)
	}
	if b := usdcBalance(t, to); b != 8_000_000 {
		t.Fatalf("refund address holds %d, want 8000000", b)
	}
	harness.Poll(t, "refund.processed events", func() map[string]any {
		return map[string]any{"n": len(events(t, ten.Root, "refund.processed"))}
	}, func(m map[string]any) bool { return m["n"] == 2 })
	if available, _ := harness.ServiceBalance(t, ten.Root); available != 2_000_000 {
		t.Fatalf("service balance %d, want 2000000", available)
	}
	harness.ExpectLedgerBalanced(t, env().DatabaseURL, ten)
}

// TestCheckout_OtherTenantAnswers404: another tenant's checkout is not found, in the
// secondary shape, for reading and refunding alike.
func TestCheckout_OtherTenantAnswers404(t *testing.T) {
	t.Parallel()
	victim, other := env().NewTenant(t), env().NewTenant(t)
	id := create(t, victim.Root, 1)["id"].(string)
	for _, r := range []*harness.Response{other.Root.Get("/v1/payments/" + id),
		other.Root.Post("/v1/payments/"+id+"/refund", map[string]any{"address": newAddress(t)}),
		other.Root.Get("/v1/payments/" + id + "/refunds"), other.Root.Post("/v1/sandbox/payments/"+id+"/expire", nil)} {
		e := r.Expect(t, 404).JSON(t)
		if e["error"].(map[string]any)["code"] != "payment_not_found" {
			t.Fatalf("other tenant: %v", e)
		}
	}
	if got := get(t, victim.Root, id); got["status"] != "created" {
		t.Fatalf("victim's checkout after the other tenant's calls: %v", got)
	}
}

// TestCheckout_BadInputRefusedInTheSecondaryShape: every bad body answers 400 naming the field
// in the secondary error shape, and creates nothing.
func TestCheckout_BadInputRefusedInTheSecondaryShape(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	base := func() map[string]any {
		return map[string]any{"amount": 10, "currency": "USD", "cryptocurrency": "USDC"}
	}
	for name, tc := range map[string]struct {
		change func(map[string]any)
		field  string
	}{
		"amount as a string":   {func(b map[string]any) { b["amount"] = "10" }, "amount"},
		"zero amount":          {func(b map[string]any) { b["amount"] = 0 }, "amount"},
		"negative amount":      {func(b map[string]any) { b["amount"] = -5 }, "amount"},
		"three decimals":       {func(b map[string]any) { b["amount"] = 1.234 }, "amount"},
		"too large":            {func(b map[string]any) { b["amount"] = 1000000.01 }, "amount"},
		"euro":                 {func(b map[string]any) { b["currency"] = "EUR" }, "currency"},
		"bitcoin":              {func(b map[string]any) { b["cryptocurrency"] = "BTC" }, "cryptocurrency"},
		"bad email":            {func(b map[string]any) { b["customer"] = map[string]any{"email": "nope"} }, "customer.email"},
		"unknown field":        {func(b map[string]any) { b["color"] = "red" }, "color"},
		"description too long": {func(b map[string]any) { b["description"] = strings.Repeat("x", 501) }, "description"},
	} {
		t.Run(name, func(t *testing.T) {
			b := base()
			tc.change(b)
			e := ten.Root.Post("/v1/payments", b).Expect(t, 400).JSON(t)
			body := e["error"].(map[string]any)
			if body["code"] != "validation_failed" || !strings.Contains(fmt.Sprint(body["message"], body["details"]), tc.field) {
				t.Fatalf("%s: %v", name, e)
			}
		})
	}
	// An exponent is refused in words that name the JSON number the field is, not a string.
	e := ten.Root.Post("/v1/payments", map[string]any{"amount": json.Number("1e1"), "currency": "USD", "cryptocurrency": "USDC"}).Expect(t, 400).JSON(t)
	if details := fmt.Sprint(e["error"].(map[string]any)["details"]); !strings.Contains(details, "plain decimal number such as 12.50") {
		t.Fatalf("an exponent: %v", e)
	}
	if n := len(events(t, ten.Root, "payment.created")); n != 0 {
		t.Fatalf("%d checkouts created by bad input", n)
	}
}

// TestCheckout_PublicStatusShowsNoSecrets: the payment page's status route is public and
// carries no merchant or customer data.
func TestCheckout_PublicStatusShowsNoSecrets(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := create(t, ten.Root, 2)["id"].(string)
	r := env().Client(t).Get("/pay/"+id+"/status").Expect(t, 200)
	if s := string(r.Body); strings.Contains(s, "payer@example.com") || strings.Contains(s, "Pat Payer") || strings.Contains(s, ten.ID) ||
		strings.Contains(s, "Order 42") {
		t.Fatalf("public status leaks: %s", s)
	}
	env().Client(t).Get("/pay/chk_00000000000000000000000000/status").Expect(t, 404)
}

// TestCheckout_CreateIsIdempotent: a create retried with one Idempotency-Key answers the same
// checkout and records one payment.created; another body under the key is refused.
func TestCheckout_CreateIsIdempotent(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	body := map[string]any{"amount": 4.2, "currency": "USD", "cryptocurrency": "USDC"}
	first := ten.Root.With("Idempotency-Key", "create-once").Post("/v1/payments", body).Expect(t, 201).JSON(t)
	again := ten.Root.With("Idempotency-Key", "create-once").Post("/v1/payments", body).Expect(t, 201).JSON(t)
	if first["id"] != again["id"] || first["deposit_address"] != again["deposit_address"] {
		t.Fatalf("retry answered %v, first %v", again, first)
	}
	if got := get(t, ten.Root, first["id"].(string)); got["customer"] != nil {
		t.Fatalf("no customer was given: %v", got["customer"])
	}
	body["amount"] = 5
	ten.Root.With("Idempotency-Key", "create-once").Post("/v1/payments", body).Expect(t, 422)
	created := events(t, ten.Root, "payment.created")
	if n := len(created); n != 1 {
		t.Fatalf("%d payment.created events, want 1", n)
	}
	// Without metadata or customer the event carries metadata {} and no customer.
	data := created[0].(map[string]any)["data"].(map[string]any)
	if meta, ok := data["metadata"].(map[string]any); !ok || len(meta) != 0 || data["customer"] != nil {
		t.Fatalf("payment.created data: %v", data)
	}
}

// TestCheckout_PaymentURLFromConfiguration: a checkout's payment_url and qr_code come from the
// configured public origin; a request's Host, X-Forwarded-Host and X-Forwarded-Proto (from a
// peer that is not a trusted proxy) change nothing, so a javascript: URL can never come back.
func TestCheckout_PaymentURLFromConfiguration(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	c := ten.Root.With("X-Forwarded-Host", "evil.example").With("X-Forwarded-Proto", "javascript")
	got := create(t, c, 3)
	id := got["id"].(string)
	if got["payment_url"] != env().BaseURL+"/pay/"+id || got["qr_code"] != env().BaseURL+"/pay/"+id+"/qr.png" {
		t.Fatalf("payment_url %v, qr_code %v: want them under %s", got["payment_url"], got["qr_code"], env().BaseURL)
	}
}

// TestCheckout_RefundToTheZeroAddressRefused: the factory refuses to pay the zero address
// (CDF:zero), so a refund there could never be sent: it is refused at the request (400
// invalid_address naming address), before any money moves, and the checkout stays refundable.
func TestCheckout_RefundToTheZeroAddressRefused(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	c := create(t, ten.Root, 3)
	id := c["id"].(string)
	pay(t, c["deposit_address"].(string), 3_000_000)
	mine(t, confirmations)
	waitStatus(t, ten.Root, id, "completed")
	for _, zero := range []string{"0x0000000000000000000000000000000000000000", "0X0000000000000000000000000000000000000000"} {
		e := ten.Root.Post("/v1/payments/"+id+"/refund", map[string]any{"amount": 1, "address": zero}).Expect(t, 400).JSON(t)
		body := e["error"].(map[string]any)
		if body["code"] != "invalid_address" || !strings.Contains(fmt.Sprint(body["details"]), "address") {
			t.Fatalf("refund to %s: %v", zero, e)
		}
	}
	if got := get(t, ten.Root, id); got["amount_refunded"] != "0.000000" || got["refundable"] != "3.000000" {
		t.Fatalf("after refused refunds: %v", got)
	}
	if refunds := ten.Root.Get("/v1/payments/"+id+"/refunds").Expect(t, 200).JSON(t); refunds["total"] != float64(0) {
		t.Fatalf("refunds recorded: %v", refunds)
	}
	if available, _ := harness.ServiceBalance(t, ten.Root); available != 3_000_000 {
		t.Fatalf("service balance %d, want 3000000", available)
	}
}
