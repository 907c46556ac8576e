package policies

import (
	"net/http"
	"testing"

	"github.com/corridorhq/corridor/core/policy"
)

// TestPolicies_ServiceBalanceSubject: a tenant's service balance is a subject of its own
// (subject id = the tenant id) with the lifecycle of any other: one policy per subject,
// detached when the policy is archived, evaluated by subject, and independent of the wallets'
// subjects: a policy on the service balance never gates a Safe payment.
func TestPolicies_ServiceBalanceSubject(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	id := createPolicy(t, ten.Root, "balance", doc(map[string]any{"limits": map[string]any{"perTransactionUsd": "1"}}))["policyId"].(string)
	balance := map[string]any{"subjectType": "service_balance", "subjectId": ten.ID}
	att := ten.Root.Post("/v1/policies/"+id+"/attachments", balance).Expect(t, http.StatusCreated).JSON(t)
	if att["subjectType"] != "service_balance" || att["subjectId"] != ten.ID {
		t.Fatalf("attachment: %v", att)
	}
	other := createPolicy(t, ten.Root, "second", limitsDoc)["policyId"].(string)
	ten.Root.Post("/v1/policies/"+other+"/attachments", balance).ExpectError(t, http.StatusConflict, "POLICY_SUBJECT_ATTACHED")

	var e evaluation
	ten.Root.Post("/v1/policies/evaluate", map[string]any{"subjectType": "service_balance", "subjectId": ten.ID, "amountUsd": "2"}).
		Expect(t, http.StatusOK).Decode(t, &e)
	if e.Allow || e.Reason != policy.CodePerTxnLimit || e.PolicyID != id {
		t.Fatalf("evaluate: %+v", e)
	}
	if d := findDecision(t, ten.ID, e.DecisionLogID); d.SubjectType != policy.SubjectServiceBalance || d.SubjectID != ten.ID ||
		d.Source != policy.SourceEvaluate || d.Mode != "" {
		t.Fatalf("dry-run decision: %+v", d)
	}

	// The wallet is another subject: its payments are not gated by the balance's policy.
	c := serverWith(t, policy.ModeEnforce, nil).Client(t).WithKey(ten.RootKey)
	p := c.Post("/v1/payments", payTo(w, payee, "50")).Expect(t, http.StatusCreated).JSON(t)
	if rows := decisionsOf(t, ten.ID, id, p["id"].(string)); len(rows) != 0 {
		t.Fatalf("the wallet gate evaluated the balance's policy: %+v", rows)
	}

	del(ten.Root, "/v1/policies/"+id).Expect(t, http.StatusOK)
	ten.Root.Post("/v1/policies/evaluate", map[string]any{"subjectType": "service_balance", "subjectId": ten.ID, "amountUsd": "2"}).
		ExpectError(t, http.StatusNotFound, "POLICY_NOT_FOUND")
	ten.Root.Post("/v1/policies/"+other+"/attachments", balance).Expect(t, http.StatusCreated)
}
