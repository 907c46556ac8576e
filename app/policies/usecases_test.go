package policies_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/policies"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// The policy use cases run on ports/fake (whose policy repository passes the same contract
// suite as Postgres): each case states a rule and the envelope code or state it leads to.

type fixedClock struct{ now time.Time }

func (c fixedClock) Now() time.Time { return c.now }

// world is one tenant's service over a fake store, with one wallet to attach policies to.
type world struct {
	store  *fake.Store
	svc    *policies.Service
	owner  auth.Principal
	wallet wallet.Wallet
}

func newWorld(t *testing.T, mode policy.Mode) *world {
	t.Helper()
	store := fake.NewStore()
	svc, err := policies.New(policies.Deps{Store: store, Clock: fixedClock{time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)}, Enforcement: mode})
	if err != nil {
		t.Fatal(err)
	}
	w := &world{store: store, svc: svc, owner: principal("ten_a", auth.ScopeRoot)}
	w.wallet = wallet.Wallet{ID: core.NewID(core.PrefixWallet), TenantID: "ten_a", Environment: core.EnvTest, Name: "ops",
		ChainID: wallet.SandboxChainID, Address: "0x00000000000000000000000000000000000000a1", Status: wallet.StatusDeployed}
	if err := store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		return tx.Wallets().CreateWallet(ctx, w.wallet)
	}); err != nil {
		t.Fatal(err)
	}
	return w
}

func principal(tenantID string, scopes ...auth.Scope) auth.Principal {
	return auth.Principal{Kind: auth.KindAPIKey, TenantID: tenantID, Environment: core.EnvTest, Scopes: scopes}
}

const capDoc = `{"schemaVersion":1,"limits":{"perTransactionUsd":"100"}}`

func (w *world) policy(t *testing.T) policy.Policy {
	t.Helper()
	p, err := w.svc.CreatePolicy(context.Background(), w.owner, policies.CreatePolicyInput{Name: "cap", Document: []byte(capDoc)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (w *world) attach(t *testing.T, p policy.Policy) policy.Attachment {
	t.Helper()
	a, err := w.svc.AttachPolicy(context.Background(), w.owner, p.ID, policies.AttachInput{SubjectType: "wallet", SubjectID: w.wallet.ID})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// wantCode fails unless err carries code, and returns the envelope's details.
func wantCode(t *testing.T, err error, code core.Code) map[string]any {
	t.Helper()
	var e *core.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("err = %v, want %s", err, code)
	}
	return e.Details
}

func (w *world) policies(t *testing.T) int {
	t.Helper()
	_, total, err := w.svc.ListPolicies(context.Background(), w.owner, ports.Page{Take: 10})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// TestPolicyUseCases_RefuseAndChangeNothing: bad input, a missing scope and another tenant's
// policy each answer their code and leave the store as it was.
func TestPolicyUseCases_RefuseAndChangeNothing(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		run  func(w *world, p policy.Policy) error
		code core.Code
	}{
		{"a policy without a name or document", func(w *world, _ policy.Policy) error {
			_, err := w.svc.CreatePolicy(ctx, w.owner, policies.CreatePolicyInput{})
			return err
		}, core.CodeValidationFailed},
		{"a document with an unknown field", func(w *world, _ policy.Policy) error {
			_, err := w.svc.CreatePolicy(ctx, w.owner, policies.CreatePolicyInput{Name: "x", Document: []byte(`{"schemaVersion":1,"nope":1}`)})
			return err
		}, core.CodeValidationFailed},
		{"a key without policies:write", func(w *world, _ policy.Policy) error {
			_, err := w.svc.CreatePolicy(ctx, principal("ten_a", auth.ScopePoliciesRead), policies.CreatePolicyInput{Name: "x", Document: []byte(capDoc)})
			return err
		}, core.CodeInsufficientScope},
		{"another tenant's policy", func(w *world, p policy.Policy) error {
			_, err := w.svc.GetPolicy(ctx, principal("ten_b", auth.ScopeRoot), p.ID)
			return err
		}, policy.CodePolicyNotFound},
		{"a version of another tenant's policy", func(w *world, p policy.Policy) error {
			_, err := w.svc.CreatePolicyVersion(ctx, principal("ten_b", auth.ScopeRoot), p.ID, []byte(capDoc))
			return err
		}, policy.CodePolicyNotFound},
		{"an attachment to an unknown wallet", func(w *world, p policy.Policy) error {
			_, err := w.svc.AttachPolicy(ctx, w.owner, p.ID, policies.AttachInput{SubjectType: "wallet", SubjectID: core.NewID(core.PrefixWallet)})
			return err
		}, core.CodeWalletNotFound},
		{"an attachment to another tenant's service balance", func(w *world, p policy.Policy) error {
			_, err := w.svc.AttachPolicy(ctx, w.owner, p.ID, policies.AttachInput{SubjectType: "service_balance", SubjectID: "ten_b"})
			return err
		}, core.CodeTenantNotFound},
		{"an agent subject where agents are not wired", func(w *world, p policy.Policy) error {
			_, err := w.svc.AttachPolicy(ctx, w.owner, p.ID, policies.AttachInput{SubjectType: "agent", SubjectID: "agt_1"})
			return err
		}, core.CodeFeatureNotAvailable},
		{"an evaluation without an amount", func(w *world, p policy.Policy) error {
			_, err := w.svc.EvaluatePolicy(ctx, w.owner, policies.EvaluateInput{PolicyID: p.ID})
			return err
		}, core.CodeValidationFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, policy.ModeLog)
			p := w.policy(t)
			commits := w.store.Commits()
			wantCode(t, tc.run(w, p), tc.code)
			if w.store.Commits() != commits || w.policies(t) != 1 {
				t.Errorf("a refused call changed the store (commits %d -> %d)", commits, w.store.Commits())
			}
		})
	}
}

// TestPolicyUseCases_Lifecycle: a policy is created at version 1, a new version becomes the
// active one, a subject takes one policy (a second is POLICY_SUBJECT_ATTACHED naming the
// first), and archiving detaches it so an archived policy cannot be attached again.
func TestPolicyUseCases_Lifecycle(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, policy.ModeLog)
	p := w.policy(t)
	if p.Status != policy.StatusActive || p.ActiveVersion != 1 {
		t.Fatalf("created = %+v, want ACTIVE at version 1", p)
	}
	v2, err := w.svc.CreatePolicyVersion(ctx, w.owner, p.ID, []byte(`{"schemaVersion":1,"limits":{"perTransactionUsd":"5"}}`))
	if err != nil || v2.Version != 2 {
		t.Fatalf("CreatePolicyVersion = %+v, %v", v2, err)
	}
	if got, _ := w.svc.GetPolicy(ctx, w.owner, p.ID); got.ActiveVersionID != v2.ID {
		t.Errorf("active version = %s, want %s", got.ActiveVersionID, v2.ID)
	}
	att := w.attach(t, p)
	other := w.policy(t)
	_, err = w.svc.AttachPolicy(ctx, w.owner, other.ID, policies.AttachInput{SubjectType: "wallet", SubjectID: w.wallet.ID})
	if d := wantCode(t, err, policy.CodeSubjectAttached); d["attachmentId"] != att.ID || d["policyId"] != p.ID {
		t.Errorf("details = %v, want the attachment and policy in place", d)
	}
	archived, err := w.svc.ArchivePolicy(ctx, w.owner, p.ID)
	if err != nil || archived.Status != policy.StatusArchived {
		t.Fatalf("ArchivePolicy = %+v, %v", archived, err)
	}
	if list, _ := w.svc.ListPolicyAttachments(ctx, w.owner, p.ID); len(list) != 0 {
		t.Errorf("an archived policy keeps %d attachments", len(list))
	}
	_, err = w.svc.AttachPolicy(ctx, w.owner, p.ID, policies.AttachInput{SubjectType: "wallet", SubjectID: w.wallet.ID})
	wantCode(t, err, core.CodeInvalidState)
	if _, err := w.svc.AttachPolicy(ctx, w.owner, other.ID, policies.AttachInput{SubjectType: "wallet", SubjectID: w.wallet.ID}); err != nil {
		t.Errorf("the freed wallet takes another policy: %v", err)
	}
}

// TestPolicyUseCases_EvaluateLogsADecision: a dry run over the cap denies and is logged,
// pinned to the active version's hash.
func TestPolicyUseCases_EvaluateLogsADecision(t *testing.T) {
	w := newWorld(t, policy.ModeLog)
	p := w.policy(t)
	for _, tc := range []struct {
		amount string
		allow  bool
	}{{"50", true}, {"150", false}} {
		d, err := w.svc.EvaluatePolicy(context.Background(), w.owner, policies.EvaluateInput{PolicyID: p.ID, AmountUSD: tc.amount})
		if err != nil || d.Verdict.Allow != tc.allow || d.Source != policy.SourceEvaluate || d.PolicyVersion != 1 || d.SHA256 == "" {
			t.Errorf("EvaluatePolicy(%s) = %+v, %v; want allow %v", tc.amount, d, err, tc.allow)
		}
	}
}

// TestPolicyUseCases_GateSafePayment: over the cap, enforce mode answers POLICY_DENIED with the
// decision's id and log mode lets the payment through; both log the decision, and off mode
// evaluates nothing.
func TestPolicyUseCases_GateSafePayment(t *testing.T) {
	for _, tc := range []struct {
		mode      policy.Mode
		denied    bool
		decisions int
	}{{policy.ModeEnforce, true, 1}, {policy.ModeLog, false, 1}, {policy.ModeOff, false, 0}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			w := newWorld(t, tc.mode)
			w.attach(t, w.policy(t))
			pay := safepay.Payment{ID: core.NewID(core.PrefixPayment), TenantID: "ten_a", Environment: core.EnvTest,
				SourceWalletID: w.wallet.ID, DestinationAddress: "0x00000000000000000000000000000000000000b2", AmountBaseUnits: 150_000_000}
			denied, err := w.svc.GateSafePayment(context.Background(), w.owner, pay)
			if err != nil || (denied != nil) != tc.denied {
				t.Fatalf("GateSafePayment = %v, %v; want denied %v", denied, err, tc.denied)
			}
			if denied != nil && (denied.Code != policy.CodeDenied || denied.Details["decisionLogId"] == nil) {
				t.Errorf("denied = %+v", denied)
			}
			var n int
			_ = w.store.Read(context.Background(), func(ctx context.Context, tx ports.Tx) (err error) {
				_, n, err = tx.Policies().ListDecisions(ctx, ports.DecisionFilter{TenantID: "ten_a", Environment: core.EnvTest, ReferenceID: pay.ID}, ports.Page{Take: 10})
				return err
			})
			if n != tc.decisions {
				t.Errorf("%d decisions logged, want %d", n, tc.decisions)
			}
		})
	}
}
