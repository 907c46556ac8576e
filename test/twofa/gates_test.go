package twofa

import (
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// Propose's gates run in one documented order (docs/payments.md): spend policy, agent limits,
// contacts (cooling-off, saved payees), two-factor approval. A request that fails two gates
// gets the earlier one; once that gate passes, the later one answers.

// enforcing is a server of the shared database with POLICY_ENFORCEMENT=enforce.
func enforcing(t *testing.T) *harness.Env {
	t.Helper()
	return harness.NewServer(t, func(c *wiring.Config) { c.PolicyEnforcement = policy.ModeEnforce })
}

// capWallet attaches a policy capping one payment at capUSD to the wallet.
func capWallet(t *testing.T, ten *harness.Tenant, walletID, capUSD string) {
	t.Helper()
	pol := ten.Root.Post("/v1/policies", map[string]any{"name": "cap", "document": map[string]any{"schemaVersion": 1,
		"limits": map[string]any{"perTransactionUsd": capUSD}}}).Expect(t, http.StatusCreated).JSON(t)
	ten.Root.Post("/v1/policies/"+pol["policyId"].(string)+"/attachments", map[string]any{"subjectType": "wallet", "subjectId": walletID}).
		Expect(t, http.StatusCreated)
}

// agentWallet provisions an agent's DEPLOYED Safe with a per-transaction limit.
func agentWallet(t *testing.T, ten *harness.Tenant, perTransactionUSD string) string {
	t.Helper()
	agent := ten.Root.Post("/v1/agents", map[string]any{"name": "gated"}).Expect(t, http.StatusCreated).JSON(t)
	id := agent["id"].(string)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	w := ten.Root.Post("/v1/agents/"+id+"/wallet", map[string]any{
		"owners": []map[string]any{{"address": crypto.PubkeyToAddress(key.PublicKey).Hex(), "role": "AGENT"}}}).Expect(t, http.StatusAccepted).JSON(t)
	walletID := w["id"].(string)
	deadline := time.Now().Add(20 * time.Second)
	for ten.Root.Get("/v1/wallets/"+walletID).Expect(t, http.StatusOK).JSON(t)["status"] != "DEPLOYED" {
		if time.Now().After(deadline) {
			t.Fatal("agent wallet did not deploy")
		}
		time.Sleep(50 * time.Millisecond)
	}
	ten.Root.Do(http.MethodPut, "/v1/agents/"+id+"/limits", map[string]any{"perTransactionUsd": perTransactionUSD}).Expect(t, http.StatusOK)
	return walletID
}

func TestGateOrder_PolicyThenAgentThenContacts(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := agentWallet(t, ten, "2")
	capWallet(t, ten, w, "5")
	putSettings(t, ten.Root, map[string]any{"requireSavedPayees": true})
	c := enforcing(t).Client(t).WithKey(ten.RootKey)
	to := freshAddress(t)
	// 10 fails the policy (cap 5), the agent limit (2) and saved payees: the policy answers.
	c.Post("/v1/payments", payTo(w, to, "10")).ExpectError(t, http.StatusForbidden, "POLICY_DENIED")
	// 3 passes the policy, fails the agent limit and saved payees: the agent limit answers.
	c.Post("/v1/payments", payTo(w, to, "3")).ExpectError(t, http.StatusForbidden, "AGENT_LIMIT")
	// 1 passes both: saved payees answers.
	c.Post("/v1/payments", payTo(w, to, "1")).ExpectError(t, http.StatusForbidden, "NEW_PAYEE_NOT_SAVED")
}

func TestGateOrder_ContactsThenTwoFactor(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	putSettings(t, ten.Root, map[string]any{"requireSavedPayees": true, "approvalAboveUsd": "0", "approveNewPayees": true})
	enroll(t, ten.Root)
	// Unsaved and protected: saved payees answers, before approval.
	ten.Root.Post("/v1/payments", payTo(w, freshAddress(t), "1")).ExpectError(t, http.StatusForbidden, "NEW_PAYEE_NOT_SAVED")
	// Saved but cooling off and protected: the cooling-off answers, before approval.
	to := freshAddress(t)
	ten.Root.Post("/v1/contacts", map[string]any{"address": to, "label": "Landlord"}).Expect(t, http.StatusCreated)
	ten.Root.Post("/v1/payments", payTo(w, to, "1")).ExpectError(t, http.StatusForbidden, "PAYEE_COOLING_OFF")
}

// TestGateOrder_ContactLabel: a saved contact past its window still needs approval above the
// threshold, and the challenge names the contact's label.
func TestGateOrder_ContactLabel(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	putSettings(t, ten.Root, map[string]any{"requireSavedPayees": true, "approvalAboveUsd": "5"})
	enroll(t, ten.Root)
	clock := &testClock{}
	c := harness.NewServer(t, func(c *wiring.Config) { c.Clock = clock }).Client(t).WithKey(ten.RootKey)
	to := freshAddress(t)
	c.Post("/v1/contacts", map[string]any{"address": to, "label": "Landlord"}).Expect(t, http.StatusCreated)
	clock.Advance(25 * time.Hour)
	c.Post("/v1/payments", payTo(w, to, "5")).Expect(t, http.StatusCreated)
	d := details(t, c.Post("/v1/payments", payTo(w, to, "6")).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED"))
	if tx := d["transaction"].(map[string]any); tx["destinationLabel"] != "Landlord" || tx["amountUsd"] != "6" {
		t.Fatalf("bound transaction: %v", tx)
	}
}
