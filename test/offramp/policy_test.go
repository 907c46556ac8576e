package offramp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// The spend policy of the sender's service balance in the off-ramp composer (subject
// service_balance, subject id the sender's tenant id; docs/policies.md, "Off-ramp payments").

// policyServer starts a second service on the package database in the given
// POLICY_ENFORCEMENT mode, optionally with the use cases' store wrapped.
func policyServer(t *testing.T, mode policy.Mode, wrap func(ports.Store) ports.Store) *harness.Env {
	t.Helper()
	return harness.NewServer(t, func(c *wiring.Config) {
		c.PolicyEnforcement = mode
		c.WrapStore = wrap
	})
}

// capBalance creates a policy with the given limits and attaches it to the tenant's service
// balance; it returns the policy id.
func capBalance(t *testing.T, ten *harness.Tenant, limits map[string]any) string {
	t.Helper()
	id := ten.Root.Post("/v1/policies", map[string]any{"name": "service balance caps",
		"document": map[string]any{"schemaVersion": 1, "limits": limits}}).Expect(t, http.StatusCreated).JSON(t)["policyId"].(string)
	att := ten.Root.Post("/v1/policies/"+id+"/attachments", map[string]any{"subjectType": "service_balance", "subjectId": ten.ID}).
		Expect(t, http.StatusCreated).JSON(t)
	if att["subjectType"] != "service_balance" || att["subjectId"] != ten.ID {
		t.Fatalf("attachment: %v", att)
	}
	return id
}

// offrampDecisions reads the decision logs of one payment straight from the store, as an
// auditor would.
func offrampDecisions(t *testing.T, tenantID, paymentID string) []policy.Decision {
	t.Helper()
	var out []policy.Decision
	err := env().Service.Store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, _, err = tx.Policies().ListDecisions(ctx, ports.DecisionFilter{TenantID: tenantID, Environment: core.EnvTest,
			ReferenceID: paymentID}, ports.Page{Take: 100})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// expectDecision checks a payment has exactly n decisions of the sender's service-balance
// policy, all in mode with the given reason, and returns the newest.
func expectDecision(t *testing.T, sender *harness.Tenant, policyID, paymentID string, amount int64, mode policy.Mode, reason string) policy.Decision {
	t.Helper()
	rows := offrampDecisions(t, sender.ID, paymentID)
	if len(rows) == 0 {
		t.Fatalf("no decision recorded for %s", paymentID)
	}
	for _, d := range rows {
		if d.PolicyID != policyID || d.SubjectType != policy.SubjectServiceBalance || d.SubjectID != sender.ID ||
			d.Source != policy.SourceOfframp || d.Mode != mode || d.Verdict.Reason != reason ||
			d.Verdict.Allow != (reason == policy.ReasonAllowed) || d.Blocked != (mode == policy.ModeEnforce && reason != policy.ReasonAllowed) ||
			d.Transaction.AmountBaseUnits != amount || d.Transaction.MCC != "" || d.Transaction.Counterparty != "" {
			t.Fatalf("decision of %s: %+v", paymentID, d)
		}
	}
	return rows[0]
}

func expectCanceledByPolicy(t *testing.T, m map[string]any) {
	t.Helper()
	if m["status"] != "CANCELED" || fmt.Sprint(m["holdReasons"]) != "[POLICY_DENIED]" || m["failureReason"] != "POLICY_DENIED" {
		t.Fatalf("want CANCELED by POLICY_DENIED: %v", m)
	}
}

// TestOfframpPolicy_EnforceDenies: over the per-transaction cap the payment is rejected at
// intake while only reserved: CANCELED, the hold voided, no money moved, a blocked decision
// recorded. Within the cap it proceeds, and its allowing decision is recorded too.
func TestOfframpPolicy_EnforceDenies(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	polID := capBalance(t, p.sender, map[string]any{"perTransactionUsd": "5"})
	c := policyServer(t, policy.ModeEnforce, nil).Client(t).WithKey(p.sender.RootKey)

	denied := c.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "5.000001"}).Expect(t, http.StatusCreated).JSON(t)
	expectCanceledByPolicy(t, denied)
	id := denied["paymentId"].(string)
	harness.ExpectServiceBalance(t, p.sender.Root, 20*usd, 0)
	if l := harness.PaymentLedger(t, env().DatabaseURL, id); len(l) != 0 {
		t.Fatalf("a denied payment moved money: %v", l)
	}
	d := expectDecision(t, p.sender, polID, id, 5_000_001, policy.ModeEnforce, policy.CodePerTxnLimit)
	if len(d.Verdict.Trace) != 8 || d.Verdict.Trace[0].Result != policy.ResultSkip || d.Verdict.Trace[2].Result != policy.ResultSkip {
		t.Fatalf("counterparty and MCC rules must skip: %+v", d.Verdict.Trace)
	}

	ok := c.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "5"}).Expect(t, http.StatusCreated).JSON(t)
	if ok["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("within the cap: %v", ok)
	}
	expectDecision(t, p.sender, polID, ok["paymentId"].(string), 5*usd, policy.ModeEnforce, policy.ReasonAllowed)
	harness.ExpectServiceBalance(t, p.sender.Root, 15*usd, 5*usd)
	trialBalanceZero(t, p.sender, p.recipient)
}

// TestOfframpPolicy_DailyCapIsCumulative: the daily cap counts the sender's other payments of
// the UTC day that hold or moved money; CANCELED and REFUNDED ones do not count.
func TestOfframpPolicy_DailyCapIsCumulative(t *testing.T) {
	t.Parallel()
	p := newPair(t, "50")
	destination(t, p.recipient.Root, serviceBalance)
	c := policyServer(t, policy.ModeEnforce, nil).Client(t).WithKey(p.sender.RootKey)
	create := func(amount string) map[string]any {
		t.Helper()
		return c.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": amount}).Expect(t, http.StatusCreated).JSON(t)
	}

	// Before any policy: one payment refunded by the provider (mock 03) and one the sender
	// canceled. Both would overflow the cap below if they counted.
	other := pair{sender: p.sender, recipient: onboarded(t), phone: harness.Phone("415")}
	verifiedAlias(t, other.recipient.Root, other.phone)
	destination(t, other.recipient.Root, walletA)
	refunded := other.create(t, "6.000003", nil).Expect(t, http.StatusCreated).JSON(t)["paymentId"].(string)
	selectAndConfirm(t, other, refunded)
	waitStatus(t, p.sender.Root, refunded, "REFUNDED")
	canceled := create("6")["paymentId"].(string)
	p.sender.Root.Post("/v1/offramp/payments/"+canceled+"/cancel", nil).Expect(t, http.StatusOK)

	polID := capBalance(t, p.sender, map[string]any{"dailyUsd": "10"})
	first := create("6")
	if first["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("first payment: %v", first)
	}
	second := create("5")
	day := func(m map[string]any) string { return m["createdAt"].(string)[:10] }
	if day(first) != day(second) {
		t.Skip("the payments straddle UTC midnight; the daily window is a calendar day")
	}
	expectCanceledByPolicy(t, second)
	expectDecision(t, p.sender, polID, second["paymentId"].(string), 5*usd, policy.ModeEnforce, policy.CodeDailyCap)
	// Exactly up to the cap passes (caps are inclusive).
	exact := create("4")
	if exact["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("6 + 4 is the cap: %v", exact)
	}
	// Once the first is canceled it no longer counts; the denied one never did.
	p.sender.Root.Post("/v1/offramp/payments/"+first["paymentId"].(string)+"/cancel", nil).Expect(t, http.StatusOK)
	third := create("6")
	if third["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("after cancel: %v", third)
	}
	expectDecision(t, p.sender, polID, third["paymentId"].(string), 6*usd, policy.ModeEnforce, policy.ReasonAllowed)
	harness.ExpectServiceBalance(t, p.sender.Root, 40*usd, 10*usd)
	trialBalanceZero(t, p.sender, p.recipient, other.recipient)
}

// TestOfframpPolicy_LogModeProceeds: the shared server runs the default mode, log: a would-be
// decline is recorded (not blocked) and the payment proceeds.
func TestOfframpPolicy_LogModeProceeds(t *testing.T) {
	t.Parallel()
	if env().Service.Policy.Enforcement() != policy.ModeLog {
		t.Fatalf("default mode is %s", env().Service.Policy.Enforcement())
	}
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	polID := capBalance(t, p.sender, map[string]any{"perTransactionUsd": "5"})
	m := p.create(t, "6", nil).Expect(t, http.StatusCreated).JSON(t)
	if m["status"] != "AWAITING_RECIPIENT_CONFIRMATION" || len(m["holdReasons"].([]any)) != 0 || m["failureReason"] != nil {
		t.Fatalf("log mode: %v", m)
	}
	expectDecision(t, p.sender, polID, m["paymentId"].(string), 6*usd, policy.ModeLog, policy.CodePerTxnLimit)
	harness.ExpectServiceBalance(t, p.sender.Root, 14*usd, 6*usd)
}

// TestOfframpPolicy_OffModeRecordsNothing: with POLICY_ENFORCEMENT=off nothing is evaluated.
func TestOfframpPolicy_OffModeRecordsNothing(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	capBalance(t, p.sender, map[string]any{"perTransactionUsd": "5"})
	c := policyServer(t, policy.ModeOff, nil).Client(t).WithKey(p.sender.RootKey)
	m := c.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "6"}).Expect(t, http.StatusCreated).JSON(t)
	if m["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("off mode: %v", m)
	}
	if rows := offrampDecisions(t, p.sender.ID, m["paymentId"].(string)); len(rows) != 0 {
		t.Fatalf("off mode recorded decisions: %+v", rows)
	}
}

// failingPolicyStore wraps the real store so that every policy read fails, as an unreachable
// policy store would; everything else is the real adapter.
type failingPolicyStore struct{ ports.Store }

func (s failingPolicyStore) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	return s.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return fn(ctx, failingPolicyTx{tx}) })
}

type failingPolicyTx struct{ ports.Tx }

func (t failingPolicyTx) Policies() ports.PolicyRepo { return failingPolicies{t.Tx.Policies()} }

type failingPolicies struct{ ports.PolicyRepo }

func (failingPolicies) FindSubjectAttachment(context.Context, string, core.Environment, policy.SubjectType, string) (policy.Attachment, bool, error) {
	return policy.Attachment{}, false, errors.New("injected: policy store unavailable")
}

// TestOfframpPolicy_SubsystemError: a failing policy store holds the payment with
// POLICY_SUBSYSTEM_ERROR in enforce mode (fails closed, recoverable: the reservation stays) and
// lets it proceed in log mode (fails open).
func TestOfframpPolicy_SubsystemError(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	wrap := func(s ports.Store) ports.Store { return failingPolicyStore{s} }

	enforce := requestsOnly(t, policyServer(t, policy.ModeEnforce, wrap)).Client(t).WithKey(p.sender.RootKey)
	held := enforce.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "2"}).Expect(t, http.StatusCreated).JSON(t)
	if held["status"] != "COMPLIANCE_HOLD" || fmt.Sprint(held["holdReasons"]) != "[POLICY_SUBSYSTEM_ERROR]" {
		t.Fatalf("enforce fails closed: %v", held)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 18*usd, 2*usd)

	logged := requestsOnly(t, policyServer(t, policy.ModeLog, wrap)).Client(t).WithKey(p.sender.RootKey)
	m := logged.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "3"}).Expect(t, http.StatusCreated).JSON(t)
	if m["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("log fails open: %v", m)
	}
	for _, id := range []string{held["paymentId"].(string), m["paymentId"].(string)} {
		if rows := offrampDecisions(t, p.sender.ID, id); len(rows) != 0 {
			t.Fatalf("a failed evaluation left a decision: %+v", rows)
		}
	}
}

// TestOfframpPolicy_ServiceBalanceSubject: the subject id of a service balance is the caller's
// own tenant id; another tenant's id is not found, as another tenant's wallet is. Evaluate by
// subject works (zero-spend, as every dry run).
func TestOfframpPolicy_ServiceBalanceSubject(t *testing.T) {
	t.Parallel()
	ten, stranger := env().NewTenant(t), env().NewTenant(t)
	id := ten.Root.Post("/v1/policies", map[string]any{"name": "caps",
		"document": map[string]any{"schemaVersion": 1, "limits": map[string]any{"perTransactionUsd": "5"}}}).
		Expect(t, http.StatusCreated).JSON(t)["policyId"].(string)
	attachments := "/v1/policies/" + id + "/attachments"
	for _, subject := range []string{stranger.ID, "ten_missing"} {
		m := ten.Root.Post(attachments, map[string]any{"subjectType": "service_balance", "subjectId": subject}).
			ExpectError(t, http.StatusNotFound, "TENANT_NOT_FOUND")
		if m["details"].(map[string]any)["field"] != "subjectId" {
			t.Fatalf("details: %v", m)
		}
	}
	ten.Root.Post(attachments, map[string]any{"subjectType": "service_balance"}).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	bad := ten.Root.Post(attachments, map[string]any{"subjectType": "balance", "subjectId": ten.ID}).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	if harness.Field(bad, "subjectType") != "must be one of wallet, card, agent, treasury_account, service_balance" {
		t.Fatalf("message: %v", bad)
	}

	ten.Root.Post("/v1/policies/evaluate", map[string]any{"subjectType": "service_balance", "subjectId": ten.ID, "amountUsd": "1"}).
		ExpectError(t, http.StatusNotFound, "POLICY_NOT_FOUND")
	att := ten.Root.Post(attachments, map[string]any{"subjectType": "service_balance", "subjectId": ten.ID}).Expect(t, http.StatusCreated).JSON(t)
	ten.Root.Post(attachments, map[string]any{"subjectType": "service_balance", "subjectId": ten.ID}).
		ExpectError(t, http.StatusConflict, "POLICY_SUBJECT_ATTACHED")

	for amount, allow := range map[string]bool{"5": true, "5.01": false} {
		e := ten.Root.Post("/v1/policies/evaluate", map[string]any{"subjectType": "service_balance", "subjectId": ten.ID, "amountUsd": amount}).
			Expect(t, http.StatusOK).JSON(t)
		if e["allow"] != allow || e["policyId"] != id || e["decisionLogId"] == nil {
			t.Fatalf("evaluate %s: %v", amount, e)
		}
	}
	ten.Root.Post("/v1/policies/evaluate", map[string]any{"subjectType": "service_balance", "subjectId": stranger.ID, "amountUsd": "1"}).
		ExpectError(t, http.StatusNotFound, "TENANT_NOT_FOUND")
	// The stranger cannot reach the tenant's attachment either.
	stranger.Root.Post("/v1/policies/evaluate", map[string]any{"subjectType": "service_balance", "subjectId": ten.ID, "amountUsd": "1"}).
		ExpectError(t, http.StatusNotFound, "TENANT_NOT_FOUND")
	del := ten.Root.Do(http.MethodDelete, "/v1/policies/attachments/"+att["attachmentId"].(string), nil).Expect(t, http.StatusOK).JSON(t)
	if del["detachedAt"] == nil {
		t.Fatalf("detach: %v", del)
	}
}

// untilExit hands harness.NewServer a TB whose cleanups never run, for a server that must
// outlive the test starting it.
type untilExit struct{ testing.TB }

func (untilExit) Cleanup(func()) {}

// jobServer is the log-mode service whose workers run the package's jobs: the shared one until
// TestOfframpPolicy_RecheckAfterQuoting replaces it (again on each -count run).
var jobServer *harness.Env

// TestOfframpPolicy_RecheckAfterQuoting: a policy attached after the quotes stops the payment
// at the pre-submission re-check: the funds unlock and POLICY_CHECK rejects it.
//
// The re-check runs in the submission job, which any server on the database may pick up, and
// the package's shared server runs in log mode. So this test does not run in parallel (Go runs
// it before any parallel test resumes): it stops the shared server's job workers, lets only an
// enforce-mode server work the jobs, then starts a server configured like the shared one whose
// workers serve the rest of the package.
func TestOfframpPolicy_RecheckAfterQuoting(t *testing.T) {
	enforce := policyServer(t, policy.ModeEnforce, nil)
	if jobServer == nil {
		jobServer = env()
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := jobServer.Service.StopWorkers(stopCtx); err != nil {
		t.Fatalf("stop the log-mode workers: %v", err)
	}
	defer func() { jobServer = harness.NewServer(untilExit{t}, nil) }()

	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	sender := enforce.Client(t).WithKey(p.sender.RootKey)
	m := sender.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "6"}).Expect(t, http.StatusCreated).JSON(t)
	if m["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("before the policy: %v", m)
	}
	id := m["paymentId"].(string)
	if rows := offrampDecisions(t, p.sender.ID, id); len(rows) != 0 {
		t.Fatalf("no policy yet, no decision: %+v", rows)
	}
	polID := capBalance(t, p.sender, map[string]any{"perTransactionUsd": "5"})

	selectAndConfirm(t, p, id)
	final := waitStatus(t, sender, id, "CANCELED")
	expectCanceledByPolicy(t, final)
	harness.ExpectServiceBalance(t, p.sender.Root, 20*usd, 0)
	harness.ExpectServiceBalance(t, p.recipient.Root, 0, 0)
	if l := harness.PaymentLedger(t, env().DatabaseURL, id); len(l) != 0 {
		t.Fatalf("lock, unlock and void should net to nothing: %v", l)
	}
	// One decision at the re-check (FUNDS_LOCKED) and one in the POLICY_CHECK that follows.
	if rows := offrampDecisions(t, p.sender.ID, id); len(rows) != 2 {
		t.Fatalf("decisions: %+v", rows)
	}
	expectDecision(t, p.sender, polID, id, 6*usd, policy.ModeEnforce, policy.CodePerTxnLimit)
	trialBalanceZero(t, p.sender, p.recipient)
}
