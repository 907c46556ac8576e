package offramp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

func operator(t *testing.T) *harness.Client {
	return env().Client(t).With("X-Operator-Token", harness.OperatorToken)
}

func approvePath(id string) string { return "/v1/admin/offramp/payments/" + id + "/approve-review" }

// TestOfframp_OperatorApprovesReview: a screening hold (amount ending 91) is cleared only by an
// operator holding the operator token; the composer then runs again and the payment quotes,
// is confirmed and delivered. A second approval is harmless.
func TestOfframp_OperatorApprovesReview(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	m := p.create(t, "5.000091", nil).Expect(t, 201).JSON(t)
	id := m["paymentId"].(string)
	if m["status"] != "COMPLIANCE_HOLD" || fmt.Sprint(m["holdReasons"]) != "[TRANSACTION_MONITORING_REVIEW]" {
		t.Fatalf("monitoring hold: %v", m)
	}

	// Wrong, missing or tenant credentials: 401, and nothing changes.
	env().Client(t).Post(approvePath(id), nil).ExpectError(t, 401, "UNAUTHENTICATED")
	env().Client(t).With("X-Operator-Token", harness.OperatorToken+"x").Post(approvePath(id), nil).ExpectError(t, 401, "UNAUTHENTICATED")
	env().Client(t).With("X-Operator-Token", "short").Post(approvePath(id), nil).ExpectError(t, 401, "UNAUTHENTICATED")
	p.sender.Root.Post(approvePath(id), nil).ExpectError(t, 401, "UNAUTHENTICATED")
	p.recipient.Root.Post(approvePath(id), nil).ExpectError(t, 401, "UNAUTHENTICATED")
	p.sender.Root.With("X-Operator-Token", harness.OperatorToken).Post(approvePath(id), nil).ExpectError(t, 401, "UNAUTHENTICATED")
	if g := get(t, p.sender.Root, id); g["status"] != "COMPLIANCE_HOLD" {
		t.Fatalf("refused approvals changed the payment: %v", g)
	}

	a := operator(t).Post(approvePath(id), nil).Expect(t, 200).JSON(t)
	if a["status"] != "AWAITING_RECIPIENT_CONFIRMATION" || len(a["holdReasons"].([]any)) != 0 {
		t.Fatalf("after approval: %v", a)
	}
	// Idempotent: approving again changes nothing.
	again := operator(t).Post(approvePath(id), nil).Expect(t, 200).JSON(t)
	if again["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("second approval: %v", again)
	}
	// Both approvals through the API are in the operator audit trail, with the payment's
	// sender and the API as where they came from; the unauthenticated tries are not actions.
	v := env().ConsoleVisitor(t)
	v.OperatorSignIn()
	if row := v.OperatorRow("operator-audit", ">"+id+"<"); !strings.Contains(row, "approve-review") || !strings.Contains(row, "done") ||
		!strings.Contains(row, p.sender.ID) || !strings.Contains(row, ">api<") {
		t.Fatalf("audit entry of the API's approval: %s", row)
	}
	if n := strings.Count(v.Get("/console/operator").Body, "<code>"+id+"</code></td><td><code>"+p.sender.ID); n != 2 {
		t.Fatalf("%d audit entries for the payment, want the 2 approvals", n)
	}
	selectAndConfirm(t, p, id)
	waitStatus(t, p.sender.Root, id, "DELIVERED")
	harness.ExpectServiceBalance(t, p.sender.Root, 20*usd-5*usd-91, 0)
	trialBalanceZero(t, p.sender, p.recipient)
}

// TestOfframp_ApprovalNeverBypassesTheComposer: approving the review of a payment that is also
// held for a suspended credential clears only the review; the payment stays held until the
// recipient's credential is ACTIVE again, and the approval still counts then.
func TestOfframp_ApprovalNeverBypassesTheComposer(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	p.recipient.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "SUSPENDED"}).Expect(t, 200)
	m := p.create(t, "3.000091", nil).Expect(t, 201).JSON(t)
	id := m["paymentId"].(string)
	if m["status"] != "COMPLIANCE_HOLD" || fmt.Sprint(m["holdReasons"]) != "[CREDENTIAL_SUSPENDED TRANSACTION_MONITORING_REVIEW]" {
		t.Fatalf("two holds: %v", m)
	}
	a := operator(t).Post(approvePath(id), nil).Expect(t, 200).JSON(t)
	if a["status"] != "COMPLIANCE_HOLD" || fmt.Sprint(a["holdReasons"]) != "[CREDENTIAL_SUSPENDED]" {
		t.Fatalf("approval must not bypass the suspended credential: %v", a)
	}
	// No review reason is left: a further approval is harmless (already approved).
	operator(t).Post(approvePath(id), nil).Expect(t, 200)
	p.recipient.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	if g := get(t, p.sender.Root, id); g["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("after reinstating, the approved review stays approved: %v", g)
	}
}

// TestOfframp_ApproveReviewRefusals: only a payment held for an operator review can be
// approved (409 otherwise), an unknown payment is 404, and without a configured operator
// token the admin routes answer 503.
func TestOfframp_ApproveReviewRefusals(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	quoted := p.create(t, "2", nil).Expect(t, 201).JSON(t)["paymentId"].(string)
	operator(t).Post(approvePath(quoted), nil).ExpectError(t, 409, "INVALID_STATE")

	p.recipient.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "SUSPENDED"}).Expect(t, 200)
	suspended := p.create(t, "2", nil).Expect(t, 201).JSON(t)
	if suspended["status"] != "COMPLIANCE_HOLD" {
		t.Fatalf("suspended: %v", suspended)
	}
	operator(t).Post(approvePath(suspended["paymentId"].(string)), nil).ExpectError(t, 409, "INVALID_STATE")
	operator(t).Post(approvePath("ofp_does_not_exist"), nil).ExpectError(t, 404, "OFFRAMP_PAYMENT_NOT_FOUND")

	off := harness.NewServer(t, func(c *wiring.Config) { c.OperatorToken = "" })
	off.Client(t).With("X-Operator-Token", harness.OperatorToken).Post(approvePath(quoted), nil).ExpectError(t, 503, "SERVICE_UNAVAILABLE")
}

// TestOfframp_CredentialChangedSinceTheQuote: a recipient credential issued after the quote
// (here re-issued ACTIVE) stops the submission at the pre-submission re-check: the funds unlock
// and the payment holds CREDENTIAL_CHANGED_REVIEW_REQUIRED, which nothing but an operator's
// review approval clears (the recipient adding a destination does not); then the payment is
// quoted afresh and delivers.
func TestOfframp_CredentialChangedSinceTheQuote(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	id := p.create(t, "5", nil).Expect(t, 201).JSON(t)["paymentId"].(string)
	p.recipient.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).Expect(t, 200)
	selectAndConfirm(t, p, id)
	held := waitStatus(t, p.sender.Root, id, "COMPLIANCE_HOLD")
	if fmt.Sprint(held["holdReasons"]) != "[CREDENTIAL_CHANGED_REVIEW_REQUIRED]" || held["requoteReason"] != "CREDENTIAL_CHANGED" {
		t.Fatalf("after the re-check: %v", held)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 15*usd, 5*usd)
	destination(t, p.recipient.Root, walletA)
	if g := get(t, p.sender.Root, id); g["status"] != "COMPLIANCE_HOLD" {
		t.Fatalf("the review hold cleared without an operator: %v", g)
	}
	if a := operator(t).Post(approvePath(id), nil).Expect(t, 200).JSON(t); a["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("approved: %v", a)
	}
	selectAndConfirm(t, p, id)
	waitStatus(t, p.sender.Root, id, "DELIVERED")
	trialBalanceZero(t, p.sender, p.recipient)
}
