package offramp

import (
	"strings"
	"testing"
)

// TestOfframp_OperatorConsoleListsHeldPayments: a payment held for review appears on the
// operator console with its sender, hold and status, and leaves it once an operator approves.
func TestOfframp_OperatorConsoleListsHeldPayments(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	id := p.create(t, "4.000091", nil).Expect(t, 201).JSON(t)["paymentId"].(string)

	v := env().ConsoleVisitor(t)
	v.OperatorSignIn()
	row := v.OperatorRow("operator-payments", id)
	if !strings.Contains(row, p.sender.ID) || !strings.Contains(row, "COMPLIANCE_HOLD") || !strings.Contains(row, "TRANSACTION_MONITORING_REVIEW") {
		t.Fatalf("held payment row: %s", row)
	}
	operator(t).Post(approvePath(id), nil).Expect(t, 200)
	if page := v.Get("/console/operator"); strings.Contains(page.Body, id) {
		t.Fatalf("an approved payment is still listed: %s", page.Body)
	}
}
