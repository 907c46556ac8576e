package policies

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// serverWith starts a second service on the shared database in the given enforcement mode,
// optionally with the use cases' store wrapped.
func serverWith(t *testing.T, mode policy.Mode, wrap func(ports.Store) ports.Store) *harness.Env {
	t.Helper()
	return harness.NewServer(t, func(c *wiring.Config) {
		c.PolicyEnforcement = mode
		c.WrapStore = wrap
	})
}

// gatedWallet is a tenant with a DEPLOYED wallet whose attached policy caps a payment at 5 USD
// and blocks addrA.
func gatedWallet(t *testing.T) (*harness.Tenant, string, string) {
	t.Helper()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	id := createPolicy(t, ten.Root, "gate", doc(map[string]any{
		"limits":         map[string]any{"perTransactionUsd": "5"},
		"counterparties": map[string]any{"blocked": []string{addrA}},
	}))["policyId"].(string)
	attach(t, ten.Root, id, w)
	return ten, w, id
}

func payTo(walletID, address, amount string) map[string]any {
	return map[string]any{
		"sourceWalletId": walletID,
		"destination":    map[string]any{"type": "address", "address": common.HexToAddress(address).Hex(), "chainId": wallet.SandboxChainID},
		"amount":         map[string]any{"value": amount},
	}
}

const payee = "0x00000000000000000000000000000000000000Cc"

func TestEnforcement_Off(t *testing.T) {
	t.Parallel()
	ten, w, id := gatedWallet(t)
	c := serverWith(t, policy.ModeOff, nil).Client(t).WithKey(ten.RootKey)
	p := c.Post("/v1/payments", payTo(w, payee, "50")).Expect(t, http.StatusCreated).JSON(t)
	if p["status"] != "AWAITING_SIGNATURE" {
		t.Fatalf("payment: %v", p)
	}
	if rows := decisionsOf(t, ten.ID, id, p["id"].(string)); len(rows) != 0 {
		t.Fatalf("off mode recorded decisions: %+v", rows)
	}
}

func TestEnforcement_Log(t *testing.T) {
	t.Parallel()
	ten, w, id := gatedWallet(t)
	// The shared server runs the default mode, log.
	if env().Service.Policy.Enforcement() != policy.ModeLog {
		t.Fatalf("default mode is %s", env().Service.Policy.Enforcement())
	}
	p := ten.Root.Post("/v1/payments", payTo(w, addrA, "50")).Expect(t, http.StatusCreated).JSON(t)
	if p["status"] != "AWAITING_SIGNATURE" || p["failureReason"] != nil {
		t.Fatalf("payment: %v", p)
	}
	rows := decisionsOf(t, ten.ID, id, p["id"].(string))
	if len(rows) != 1 {
		t.Fatalf("%d decisions", len(rows))
	}
	d := rows[0]
	if d.Verdict.Allow || d.Verdict.Reason != policy.CodeCounterpartyBlocked || d.Blocked || d.Mode != policy.ModeLog ||
		d.Source != policy.SourcePayment || d.SubjectID != w || d.Transaction.Counterparty != strings.ToLower(addrA) ||
		d.Transaction.MCC != "" || d.Transaction.AmountBaseUnits != 50_000_000 {
		t.Fatalf("would-be decline not recorded: %+v", d)
	}
	// An allowed payment is recorded too.
	ok := ten.Root.Post("/v1/payments", payTo(w, payee, "5")).Expect(t, http.StatusCreated).JSON(t)
	if rows := decisionsOf(t, ten.ID, id, ok["id"].(string)); len(rows) != 1 || !rows[0].Verdict.Allow {
		t.Fatalf("allowed payment decisions: %+v", rows)
	}
}

func TestEnforcement_Enforce(t *testing.T) {
	t.Parallel()
	ten, w, id := gatedWallet(t)
	c := serverWith(t, policy.ModeEnforce, nil).Client(t).WithKey(ten.RootKey)

	m := c.Post("/v1/payments", payTo(w, payee, "5.000001")).ExpectError(t, http.StatusForbidden, "POLICY_DENIED")
	details := m["details"].(map[string]any)
	payID, _ := details["paymentId"].(string)
	if details["reason"] != policy.CodePerTxnLimit || details["policyId"] != id || !core.HasPrefix(payID, core.PrefixPayment) {
		t.Fatalf("details: %v", details)
	}
	got := c.Get("/v1/payments/"+payID).Expect(t, http.StatusOK).JSON(t)
	reason, _ := got["failureReason"].(string)
	if got["status"] != "FAILED" || !strings.HasPrefix(reason, "POLICY_DENIED: PER_TXN_LIMIT") || got["safeTxHash"] != nil {
		t.Fatalf("denied payment: %v", got)
	}
	rows := decisionsOf(t, ten.ID, id, payID)
	if len(rows) != 1 || !rows[0].Blocked || rows[0].Mode != policy.ModeEnforce || rows[0].ID != details["decisionLogId"] {
		t.Fatalf("decisions: %+v", rows)
	}
	c.Post("/v1/payments", payTo(w, addrA, "1")).ExpectError(t, http.StatusForbidden, "POLICY_DENIED")

	// Allowed payments proceed, and take the Safe nonce the denied ones never held.
	ok := c.Post("/v1/payments", payTo(w, payee, "5")).Expect(t, http.StatusCreated).JSON(t)
	if ok["status"] != "AWAITING_SIGNATURE" {
		t.Fatalf("allowed payment: %v", ok)
	}
	// A wallet without a policy is not gated.
	free := newWallet(t, ten)
	c.Post("/v1/payments", payTo(free, addrA, "500")).Expect(t, http.StatusCreated)
	// Detached: no longer gated.
	atts := ten.Root.Get("/v1/policies/" + id + "/attachments").JSON(t)["attachments"].([]any)
	del(ten.Root, "/v1/policies/attachments/"+atts[0].(map[string]any)["attachmentId"].(string)).Expect(t, http.StatusOK)
	c.Post("/v1/payments", payTo(w, addrA, "500")).Expect(t, http.StatusCreated)
}

// failingStore wraps the real store so that every policy read fails, as an unreachable or
// corrupted policy store would; everything else is the real adapter.
type failingStore struct{ ports.Store }

func (s failingStore) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	return s.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return fn(ctx, failingTx{tx}) })
}

type failingTx struct{ ports.Tx }

func (t failingTx) Policies() ports.PolicyRepo { return failingPolicies{t.Tx.Policies()} }

type failingPolicies struct{ ports.PolicyRepo }

var errPolicyStore = errors.New("injected: policy store unavailable")

func (failingPolicies) FindSubjectAttachment(context.Context, string, core.Environment, policy.SubjectType, string) (policy.Attachment, bool, error) {
	return policy.Attachment{}, false, errPolicyStore
}

func TestEnforcement_SubsystemError(t *testing.T) {
	t.Parallel()
	ten, w, _ := gatedWallet(t)
	wrap := func(s ports.Store) ports.Store { return failingStore{s} }

	t.Run("log fails open", func(t *testing.T) {
		c := serverWith(t, policy.ModeLog, wrap).Client(t).WithKey(ten.RootKey)
		p := c.Post("/v1/payments", payTo(w, addrA, "50")).Expect(t, http.StatusCreated).JSON(t)
		if p["status"] != "AWAITING_SIGNATURE" {
			t.Fatalf("payment: %v", p)
		}
	})
	t.Run("enforce fails closed", func(t *testing.T) {
		c := serverWith(t, policy.ModeEnforce, wrap).Client(t).WithKey(ten.RootKey)
		before := c.Get("/v1/payments").JSON(t)["total"]
		m := c.Post("/v1/payments", payTo(w, payee, "1")).ExpectError(t, http.StatusServiceUnavailable, "POLICY_UNAVAILABLE")
		if m["details"].(map[string]any)["walletId"] != w || strings.Contains(m["message"].(string), "injected") {
			t.Fatalf("envelope: %v", m)
		}
		if after := c.Get("/v1/payments").JSON(t)["total"]; after != before {
			t.Fatalf("a payment was recorded: %v → %v", before, after)
		}
		// With an Idempotency-Key the failure is not stored: a retry runs again.
		c.With("Idempotency-Key", "fail-closed-1").Post("/v1/payments", payTo(w, payee, "1")).
			ExpectError(t, http.StatusServiceUnavailable, "POLICY_UNAVAILABLE")
		ten.Root.With("Idempotency-Key", "fail-closed-1").Post("/v1/payments", payTo(w, payee, "1")).Expect(t, http.StatusCreated)
	})
}
