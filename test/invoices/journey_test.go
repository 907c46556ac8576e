package invoices

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
)

// TestInvoice_ReleaseJourney: create → send (hold Safe) → fund from the faucet → the poller
// makes it FUNDED → deliver → release (one settlement in flight, however many ask) → the payee
// signs (the payment waits for a second owner) → the platform arbiter signs → the payment
// executes → RELEASED with the payee paid, and the ledger reconciles at zero drift.
func TestInvoice_ReleaseJourney(t *testing.T) {
	ten := env().NewTenant(t)
	payer, payee := newKey(t), newKey(t)
	inv := createInvoice(t, ten.Root, payer, payee, "10", nil)
	id := inv["invoiceId"].(string)
	if inv["arbiterAddress"] == nil || inv["chainId"] != float64(84532) {
		t.Fatalf("defaults: %v", inv)
	}

	public := env().Client(t).Get("/v1/invoices/public/"+id).Expect(t, 200).JSON(t)
	if len(public) != 4 || public["amountUsd"] != "10" || public["status"] != "DRAFT" || public["holdAddress"] != nil || public["chainId"] != float64(84532) {
		t.Fatalf("public view: %v", public)
	}

	sent := sendInvoice(t, ten.Root, id)
	ten.Root.Post("/v1/invoices/"+id+"/send", nil).ExpectError(t, 409, "INVALID_STATE")
	ten.Root.Post("/v1/invoices/"+id+"/deliver", nil).ExpectError(t, 409, "INVALID_STATE")
	ten.Root.Post("/v1/invoices/"+id+"/release", nil).ExpectError(t, 409, "INVALID_STATE")

	// Under-funded: the poller leaves it SENT.
	fund(t, ten.Root, sent, "4")
	ten.Root.Post("/v1/sandbox/invoices/"+id+"/advance", map[string]any{"seconds": 1}).Expect(t, 200)
	time.Sleep(500 * time.Millisecond)
	if got := ten.Root.Get("/v1/invoices/"+id).Expect(t, 200).JSON(t); got["status"] != "SENT" {
		t.Fatalf("under-funded: %v", got)
	}
	fund(t, ten.Root, sent, "6")
	funded := pollNow(t, ten.Root, id, 1, "SENT")
	if funded["status"] != "FUNDED" || funded["fundedAt"] == nil {
		t.Fatalf("funded: %v", funded)
	}
	ten.Root.Post("/v1/invoices/"+id+"/cancel", nil).ExpectError(t, 409, "INVALID_STATE")

	delivered := ten.Root.Post("/v1/invoices/"+id+"/deliver", map[string]any{"evidence": "tracking 1Z999"}).Expect(t, 200).JSON(t)
	if delivered["status"] != "DELIVERED" || delivered["evidence"] != "tracking 1Z999" {
		t.Fatalf("delivered: %v", delivered)
	}

	// Four releases at once: one proposes, the others find it in flight.
	var wg sync.WaitGroup
	statuses := make([]int, 4)
	bodies := make([]string, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := ten.Root.With("Idempotency-Key", fmt.Sprintf("release-%d", i)).Post("/v1/invoices/"+id+"/release", map[string]any{"ownerAddress": payee.address.Hex()})
			statuses[i], bodies[i] = r.Status, string(r.Body)
		}()
	}
	wg.Wait()
	ok := 0
	for i, s := range statuses {
		switch {
		case s == 200:
			ok++
		case s != 409 || !strings.Contains(bodies[i], "SETTLEMENT_IN_FLIGHT"):
			t.Fatalf("release %d: %d %s", i, s, bodies[i])
		}
	}
	if ok != 1 {
		t.Fatalf("%d releases proposed, want 1: %v", ok, statuses)
	}
	// A retry with the winner's key replays; a refund is refused while the release is in flight.
	got := ten.Root.Get("/v1/invoices/"+id).Expect(t, 200).JSON(t)
	payID, _ := got["releasePaymentId"].(string)
	if payID == "" || got["status"] != "DELIVERED" || got["refundPaymentId"] != nil {
		t.Fatalf("after release: %v", got)
	}
	ten.Root.Post("/v1/invoices/"+id+"/refund", nil).ExpectError(t, 409, "SETTLEMENT_IN_FLIGHT")

	pay := ten.Root.Get("/v1/payments/"+payID).Expect(t, 200).JSON(t)
	if pay["status"] != "AWAITING_SIGNATURE" || pay["amount"] != "10" {
		t.Fatalf("release payment: %v", pay)
	}
	if signed := signPayment(t, ten.Root, payID, payee); signed["status"] != "SIGNING" {
		t.Fatalf("one of two signatures: want SIGNING (not executed), got %v", signed)
	}
	arbiterSign(t, id)
	if done := waitPayment(t, ten.Root, payID, "COMPLETED"); done["status"] != "COMPLETED" {
		t.Fatalf("release payment: %v", done)
	}
	released := pollNow(t, ten.Root, id, 1, "DELIVERED")
	if released["status"] != "RELEASED" || released["releasePaymentId"] != payID {
		t.Fatalf("released: %v", released)
	}
	if b := usdcBalance(t, payee.address); b != 10_000_000 {
		t.Fatalf("payee holds %d base units, want 10 USDC", b)
	}
	ten.Root.Post("/v1/invoices/"+id+"/refund", nil).ExpectError(t, 409, "INVALID_STATE")
	if p := env().Client(t).Get("/v1/invoices/public/"+id).Expect(t, 200).JSON(t); p["status"] != "RELEASED" {
		t.Fatalf("public after release: %v", p)
	}
	rec := zeroDrift(t, ten.Root)
	if tot := rec["totals"].(map[string]any); tot["onchainBalance"] != "0" {
		t.Fatalf("the hold Safe still holds funds: %v", rec)
	}
	// Each status the invoice reached was announced once, background polls included.
	for _, st := range []string{"draft", "sent", "funded", "delivered", "released"} {
		if d := ten.Root.OneEventOf(t, "invoice."+st, id); d["status"] != strings.ToUpper(st) || d["amount"] != "10" {
			t.Fatalf("invoice.%s: %v", st, d)
		}
	}
	if n := len(ten.Root.EventsOf(t, "invoice.*", id)); n != 5 {
		t.Fatalf("%d invoice events, want 5", n)
	}
}

// TestInvoice_ExpiredUnfundedHasNothingToRefund: a SENT invoice whose expiry passes with an
// empty Safe becomes EXPIRED; release is refused; a refund answers INVOICE_NOTHING_TO_REFUND.
func TestInvoice_ExpiredUnfundedHasNothingToRefund(t *testing.T) {
	ten := env().NewTenant(t)
	inv := createInvoice(t, ten.Root, newKey(t), newKey(t), "3", map[string]any{"expiresAt": future(time.Hour)})
	id := inv["invoiceId"].(string)
	sendInvoice(t, ten.Root, id)
	expired := pollNow(t, ten.Root, id, 7200, "SENT")
	if expired["status"] != "EXPIRED" {
		t.Fatalf("expired: %v", expired)
	}
	ten.Root.Post("/v1/invoices/"+id+"/release", nil).ExpectError(t, 409, "INVALID_STATE")
	ten.Root.Post("/v1/invoices/"+id+"/refund", nil).ExpectError(t, 409, "INVOICE_NOTHING_TO_REFUND")
	ten.Root.Post("/v1/invoices/"+id+"/cancel", nil).ExpectError(t, 409, "INVALID_STATE")
	if got := ten.Root.Get("/v1/invoices/"+id).Expect(t, 200).JSON(t); got["status"] != "EXPIRED" || got["refundPaymentId"] != nil {
		t.Fatalf("after refusals: %v", got)
	}
	if d := ten.Root.OneEventOf(t, "invoice.expired", id); d["status"] != "EXPIRED" {
		t.Fatalf("invoice.expired: %v", d)
	}
}

// TestInvoice_FundsWinOverExpiry: the Safe is funded after expiresAt passed but before the
// poller ran: the poller reads the balance first and makes it FUNDED, never EXPIRED. Release
// is refused after expiry; the refund (payer and arbiter sign) pays the payer.
func TestInvoice_FundsWinOverExpiry(t *testing.T) {
	ten := env().NewTenant(t)
	payer := newKey(t)
	expiresAt := time.Now().Add(4 * time.Second)
	inv := createInvoice(t, ten.Root, payer, newKey(t), "5", map[string]any{"expiresAt": expiresAt.UTC().Format(time.RFC3339Nano)})
	id := inv["invoiceId"].(string)
	sent := sendInvoice(t, ten.Root, id)
	time.Sleep(time.Until(expiresAt) + 200*time.Millisecond)
	fund(t, ten.Root, sent, "5")
	funded := pollNow(t, ten.Root, id, 1, "SENT")
	if funded["status"] != "FUNDED" {
		t.Fatalf("funded after expiry: %v, want FUNDED", funded)
	}
	// A FUNDED invoice never expires: another poll far ahead leaves it FUNDED.
	ten.Root.Post("/v1/sandbox/invoices/"+id+"/advance", map[string]any{"seconds": 86400}).Expect(t, 200)
	time.Sleep(300 * time.Millisecond)
	ten.Root.Post("/v1/invoices/"+id+"/release", nil).ExpectError(t, 409, "INVALID_STATE")

	keyed := ten.Root.With("Idempotency-Key", "refund-"+id)
	refunding := keyed.Post("/v1/invoices/"+id+"/refund", map[string]any{"ownerAddress": payer.address.Hex()}).Expect(t, 200).JSON(t)
	payID, _ := refunding["refundPaymentId"].(string)
	if payID == "" || refunding["status"] != "FUNDED" {
		t.Fatalf("refund proposed: %v", refunding)
	}
	// A retry with the same key replays the proposal; it proposes nothing more.
	if again := keyed.Post("/v1/invoices/"+id+"/refund", map[string]any{"ownerAddress": payer.address.Hex()}).Expect(t, 200).JSON(t); again["refundPaymentId"] != payID {
		t.Fatalf("retry: %v", again)
	}
	ten.Root.Post("/v1/invoices/"+id+"/refund", map[string]any{"ownerAddress": newKey(t).address.Hex()}).ExpectError(t, 400, "VALIDATION_FAILED")
	ten.Root.Post("/v1/invoices/"+id+"/refund", nil).ExpectError(t, 409, "SETTLEMENT_IN_FLIGHT")
	signPayment(t, ten.Root, payID, payer)
	arbiterSign(t, id)
	waitPayment(t, ten.Root, payID, "COMPLETED")
	refunded := pollNow(t, ten.Root, id, 1, "FUNDED")
	if refunded["status"] != "REFUNDED" {
		t.Fatalf("refunded: %v", refunded)
	}
	if b := usdcBalance(t, payer.address); b != 5_000_000 {
		t.Fatalf("payer holds %d base units, want 5 USDC", b)
	}
	zeroDrift(t, ten.Root)
}

// TestInvoice_ExpiredFundedRefund: funds arrive after the poller already made the invoice
// EXPIRED; the refund sweeps the Safe's actual balance to the payer.
func TestInvoice_ExpiredFundedRefund(t *testing.T) {
	ten := env().NewTenant(t)
	payer, payee := newKey(t), newKey(t)
	inv := createInvoice(t, ten.Root, payer, payee, "8", map[string]any{"expiresAt": future(time.Hour)})
	id := inv["invoiceId"].(string)
	sent := sendInvoice(t, ten.Root, id)
	if pollNow(t, ten.Root, id, 7200, "SENT")["status"] != "EXPIRED" {
		t.Fatal("not expired")
	}
	fund(t, ten.Root, sent, "3")
	refunding := ten.Root.Post("/v1/invoices/"+id+"/refund", nil).Expect(t, 200).JSON(t)
	payID := refunding["refundPaymentId"].(string)
	if v := ten.Root.Get("/v1/payments/"+payID).Expect(t, 200).JSON(t)["amount"]; v != "3" {
		t.Fatalf("refund amount %v, want the Safe's actual 3", v)
	}
	signPayment(t, ten.Root, payID, payee)
	signPayment(t, ten.Root, payID, payer)
	waitPayment(t, ten.Root, payID, "COMPLETED")
	if got := pollNow(t, ten.Root, id, 1, "EXPIRED"); got["status"] != "REFUNDED" {
		t.Fatalf("refunded: %v", got)
	}
	if b := usdcBalance(t, payer.address); b != 3_000_000 {
		t.Fatalf("payer holds %d", b)
	}
}

// TestInvoice_ArbiterSignRefusals: the platform arbiter signs only a pending settlement of an
// invoice whose arbiter it is.
func TestInvoice_ArbiterSignRefusals(t *testing.T) {
	ten := env().NewTenant(t)
	op := env().Client(t).With("X-Operator-Token", "optok_test_0123456789abcdef0123456789abcdef")
	own := createInvoice(t, ten.Root, newKey(t), newKey(t), "1", map[string]any{"arbiterAddress": newKey(t).address.Hex()})
	op.Post("/v1/admin/invoices/"+own["invoiceId"].(string)+"/arbiter-sign", nil).ExpectError(t, 409, "INVALID_STATE")
	draft := createInvoice(t, ten.Root, newKey(t), newKey(t), "1", nil)
	op.Post("/v1/admin/invoices/"+draft["invoiceId"].(string)+"/arbiter-sign", nil).ExpectError(t, 409, "INVALID_STATE")
	op.Post("/v1/admin/invoices/inv_missing/arbiter-sign", nil).ExpectError(t, 404, "INVOICE_NOT_FOUND")
	ten.Root.Post("/v1/admin/invoices/"+draft["invoiceId"].(string)+"/arbiter-sign", nil).ExpectError(t, 401, "UNAUTHENTICATED")
}

// TestInvoice_ReleaseTwoFactorHandshake: the release proposes a payment from the hold Safe to
// the payee; with the tenant's approval on, it answers TWOFA_REQUIRED with a challenge that
// survives the refused release, and the same release with twofaChallengeId proposes it.
func TestInvoice_ReleaseTwoFactorHandshake(t *testing.T) {
	ten := env().NewTenant(t)
	payer, payee := newKey(t), newKey(t)
	id := createInvoice(t, ten.Root, payer, payee, "10", nil)["invoiceId"].(string)
	sent := sendInvoice(t, ten.Root, id)
	fund(t, ten.Root, sent, "10")
	if funded := pollNow(t, ten.Root, id, 1, "SENT"); funded["status"] != "FUNDED" {
		t.Fatalf("funded: %v", funded)
	}
	ten.Root.Post("/v1/invoices/"+id+"/deliver", nil).Expect(t, 200)
	ten.Root.Do("PUT", "/v1/twofactor/settings", map[string]any{"approvalAboveUsd": "5"}).Expect(t, 200)
	f := ten.Root.Post("/v1/twofactor/factors", map[string]any{"label": "ops"}).Expect(t, 201).JSON(t)
	secret := f["secret"].(string)
	ten.Root.Post("/v1/twofactor/factors/"+f["id"].(string)+"/verify", map[string]any{"code": harness.TOTP(t, secret)}).Expect(t, 200)

	body := map[string]any{"ownerAddress": payee.address.Hex()}
	refused := ten.Root.Post("/v1/invoices/"+id+"/release", body).ExpectError(t, 403, "TWOFA_REQUIRED")
	chID := refused["details"].(map[string]any)["challengeId"].(string)
	if got := ten.Root.Get("/v1/invoices/" + id).JSON(t); got["releasePaymentId"] != nil {
		t.Fatalf("a refused release linked a payment: %v", got)
	}
	ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": harness.TOTP(t, secret)}).Expect(t, 200)
	body["twofaChallengeId"] = chID
	released := ten.Root.Post("/v1/invoices/"+id+"/release", body).Expect(t, 200).JSON(t)
	if released["releasePaymentId"] == nil {
		t.Fatalf("release after approval: %v", released)
	}
}
