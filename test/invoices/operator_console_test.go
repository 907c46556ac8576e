package invoices

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestInvoice_OperatorConsoleArbiterSigns: an invoice whose refund waits for the platform
// arbiter is listed on the operator console; signing there needs the confirmation, then the
// arbiter's signature completes the refund, and the audit trail records the refusal and the
// signature with the invoice's tenant.
func TestInvoice_OperatorConsoleArbiterSigns(t *testing.T) {
	ten := env().NewTenant(t)
	payer := newKey(t)
	inv := createInvoice(t, ten.Root, payer, newKey(t), "3", map[string]any{"expiresAt": future(time.Hour)})
	id := inv["invoiceId"].(string)
	sent := sendInvoice(t, ten.Root, id)
	fund(t, ten.Root, sent, "3")
	if funded := pollNow(t, ten.Root, id, 1, "SENT"); funded["status"] != "FUNDED" {
		t.Fatalf("funded: %v", funded)
	}
	payID := ten.Root.Post("/v1/invoices/"+id+"/refund", map[string]any{"ownerAddress": payer.address.Hex()}).Expect(t, 200).JSON(t)["refundPaymentId"].(string)
	signPayment(t, ten.Root, payID, payer)

	v := env().ConsoleVisitor(t)
	v.OperatorSignIn()
	row := v.OperatorRow("operator-invoices", id)
	if !strings.Contains(row, ten.ID) || !strings.Contains(row, "refund") || !strings.Contains(row, payID) ||
		!strings.Contains(row, "/console/operator/invoices/"+id+"/arbiter-sign") {
		t.Fatalf("invoice row: %s", row)
	}
	sign := "/console/operator/invoices/" + id + "/arbiter-sign"
	if r := v.Post(sign, url.Values{}, true); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "Tick the confirmation") {
		t.Fatalf("signing without the confirmation: %d %s", r.Status, r.Body)
	}
	if r := v.Post(sign, url.Values{"confirm": {"yes"}}, false); r.Status != http.StatusForbidden {
		t.Fatalf("signing without a CSRF token: %d", r.Status)
	}
	if r := v.Post("/console/operator/invoices/inv_nosuchinvoice/arbiter-sign", url.Values{"confirm": {"yes"}}, true); r.Status != http.StatusNotFound {
		t.Fatalf("signing an unknown invoice: %d %s", r.Status, r.Body)
	}
	if r := v.Post(sign, url.Values{"confirm": {"yes"}}, true); r.Status != http.StatusSeeOther {
		t.Fatalf("signing: %d %s", r.Status, r.Body)
	}
	waitPayment(t, ten.Root, payID, "COMPLETED")
	if refunded := pollNow(t, ten.Root, id, 1, "FUNDED"); refunded["status"] != "REFUNDED" {
		t.Fatalf("refunded: %v", refunded)
	}
	if page := v.Get("/console/operator?signed=" + id); !strings.Contains(page.Body, "arbiter signed the settlement of invoice "+id) {
		t.Fatalf("after signing the page: %s", page.Body)
	}
	done := v.OperatorRow("operator-audit", ">"+id+"<")
	if !strings.Contains(done, "arbiter-sign") || !strings.Contains(done, "done") || !strings.Contains(done, ten.ID) || !strings.Contains(done, "console") {
		t.Fatalf("audit entry of the signature: %s", done)
	}
	refused := v.OperatorRow("operator-audit", "inv_nosuchinvoice")
	if !strings.Contains(refused, "refused") || !strings.Contains(refused, "NOT_FOUND") {
		t.Fatalf("audit entry of the refusal: %s", refused)
	}
}
