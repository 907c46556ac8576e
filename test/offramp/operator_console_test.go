package offramp

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestOfframp_OperatorConsoleListsAndApprovesHeldPayments: a payment held for review appears
// on the operator console with its sender, hold and status. Approving it there needs the
// confirmation and the page's CSRF token (refusals change nothing); once approved it runs the
// checks again, as the admin API's approval does, and leaves the list.
func TestOfframp_OperatorConsoleListsAndApprovesHeldPayments(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	id := p.create(t, "4.000091", nil).Expect(t, 201).JSON(t)["paymentId"].(string)

	v := env().ConsoleVisitor(t)
	v.OperatorSignIn()
	row := v.OperatorRow("operator-payments", id)
	if !strings.Contains(row, p.sender.ID) || !strings.Contains(row, "COMPLIANCE_HOLD") || !strings.Contains(row, "TRANSACTION_MONITORING_REVIEW") ||
		!strings.Contains(row, "/console/operator/payments/"+id+"/approve-review") {
		t.Fatalf("held payment row: %s", row)
	}
	approve := "/console/operator/payments/" + id + "/approve-review"
	if r := v.Post(approve, url.Values{}, true); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "Tick the confirmation") {
		t.Fatalf("approval without the confirmation: %d %s", r.Status, r.Body)
	}
	if r := v.Post(approve, url.Values{"confirm": {"yes"}}, false); r.Status != http.StatusForbidden {
		t.Fatalf("approval without a CSRF token: %d", r.Status)
	}
	if g := get(t, p.sender.Root, id); g["status"] != "COMPLIANCE_HOLD" {
		t.Fatalf("refused approvals changed the payment: %v", g)
	}
	if r := v.Post("/console/operator/payments/ofp_nosuchpayment/approve-review", url.Values{"confirm": {"yes"}}, true); r.Status != http.StatusNotFound {
		t.Fatalf("approving an unknown payment: %d", r.Status)
	}

	v.Get("/console/operator")
	if r := v.Post(approve, url.Values{"confirm": {"yes"}}, true); r.Status != http.StatusSeeOther {
		t.Fatalf("approval: %d %s", r.Status, r.Body)
	}
	if g := get(t, p.sender.Root, id); g["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("after the console's approval: %v", g)
	}
	page := v.Get("/console/operator?approved=" + id)
	held := page.Body[strings.Index(page.Body, `id="operator-payments"`):]
	held = held[:strings.Index(held, "</table>")]
	if !strings.Contains(page.Body, "Review approved for "+id) || strings.Contains(held, "<code>"+id+"</code>") {
		t.Fatalf("after approval the page: %s", page.Body)
	}
	// The approval is in the audit trail, from the console.
	if row := v.OperatorRow("operator-audit", ">"+id+"<"); !strings.Contains(row, "approve-review") || !strings.Contains(row, ">console<") {
		t.Fatalf("audit entry: %s", row)
	}
}
