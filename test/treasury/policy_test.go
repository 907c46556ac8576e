package treasury

import (
	"net/http"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestTreasury_AccountPolicyGatesSweeps: a policy attaches to a treasury account of the caller
// (another tenant's account is not found), evaluates by subject, and in enforce mode declines a
// sweep out of any of the account's buckets above its cap with 403 POLICY_DENIED, proposing
// nothing; a sweep within it is proposed.
func TestTreasury_AccountPolicyGatesSweeps(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	account := createAccount(t, ten.Root, []owner{o}, 1, bucket("a", "OPERATING", 5000), bucket("b", "RESERVE", 5000))
	id := account["accountId"].(string)
	a, b := bucketAt(account, 0)["bucketId"], bucketAt(account, 1)["bucketId"]
	fund(t, ten.Root, bucketAt(account, 0), "50")

	pol := ten.Root.Post("/v1/policies", map[string]any{"name": "treasury cap",
		"document": map[string]any{"schemaVersion": 1, "limits": map[string]any{"perTransactionUsd": "10"}}}).Expect(t, http.StatusCreated).JSON(t)["policyId"].(string)
	other := env().NewTenant(t)
	otherPol := other.Root.Post("/v1/policies", map[string]any{"name": "x",
		"document": map[string]any{"schemaVersion": 1, "limits": map[string]any{"perTransactionUsd": "10"}}}).Expect(t, http.StatusCreated).JSON(t)["policyId"].(string)
	other.Root.Post("/v1/policies/"+otherPol+"/attachments", map[string]any{"subjectType": "treasury_account", "subjectId": id}).
		ExpectError(t, http.StatusNotFound, "TREASURY_ACCOUNT_NOT_FOUND")
	att := ten.Root.Post("/v1/policies/"+pol+"/attachments", map[string]any{"subjectType": "treasury_account", "subjectId": id}).
		Expect(t, http.StatusCreated).JSON(t)
	if att["subjectType"] != "treasury_account" || att["subjectId"] != id {
		t.Fatalf("attachment %v", att)
	}
	verdict := ten.Root.Post("/v1/policies/evaluate", map[string]any{"subjectType": "treasury_account", "subjectId": id,
		"amountUsd": "25"}).Expect(t, http.StatusOK).JSON(t)
	if verdict["policyId"] != pol || verdict["allow"] != false {
		t.Fatalf("evaluate by subject: %v", verdict)
	}

	c := harness.NewServer(t, func(c *wiring.Config) { c.PolicyEnforcement = policy.ModeEnforce }).Client(t).WithKey(ten.RootKey)
	path := "/v1/treasury/accounts/" + id + "/sweeps"
	denied := c.Post(path, map[string]any{"sourceBucketId": a, "destBucketId": b, "amountUsd": "25", "ownerAddress": o.Address.Hex()}).
		ExpectError(t, http.StatusForbidden, "POLICY_DENIED")
	if denied["details"].(map[string]any)["policyId"] != pol {
		t.Fatalf("sweep decline: %v", denied)
	}
	if n := len(sweeps(t, ten.Root, id)); n != 0 {
		t.Fatalf("a declined sweep was proposed: %d sweeps", n)
	}
	c.Post(path, map[string]any{"sourceBucketId": a, "destBucketId": b, "amountUsd": "5", "ownerAddress": o.Address.Hex()}).Expect(t, http.StatusCreated)
	if n := len(sweeps(t, ten.Root, id)); n != 1 {
		t.Fatalf("sweeps %d, want the one within the policy", n)
	}
}

// TestTreasury_DeniedSweepKeepsItsFailedPayment: a manual sweep the account's policy denies in
// enforce mode answers 403 POLICY_DENIED naming a paymentId, and that payment is readable,
// FAILED with failureReason POLICY_DENIED (its decision log kept with it), as for any Safe
// payment the policy denies; no sweep is recorded. The sweep's unit of work used to roll the
// FAILED payment and its decision back, so the paymentId the 403 named answered 404.
func TestTreasury_DeniedSweepKeepsItsFailedPayment(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	account := createAccount(t, ten.Root, []owner{o}, 1, bucket("a", "OPERATING", 5000), bucket("b", "RESERVE", 5000))
	id := account["accountId"].(string)
	a, b := bucketAt(account, 0)["bucketId"], bucketAt(account, 1)["bucketId"]

	pol := ten.Root.Post("/v1/policies", map[string]any{"name": "treasury cap",
		"document": map[string]any{"schemaVersion": 1, "limits": map[string]any{"perTransactionUsd": "10"}}}).Expect(t, http.StatusCreated).JSON(t)["policyId"].(string)
	ten.Root.Post("/v1/policies/"+pol+"/attachments", map[string]any{"subjectType": "treasury_account", "subjectId": id}).
		Expect(t, http.StatusCreated)

	c := harness.NewServer(t, func(c *wiring.Config) { c.PolicyEnforcement = policy.ModeEnforce }).Client(t).WithKey(ten.RootKey)
	denied := c.Post("/v1/treasury/accounts/"+id+"/sweeps", map[string]any{"sourceBucketId": a, "destBucketId": b, "amountUsd": "10.000001"}).
		ExpectError(t, http.StatusForbidden, "POLICY_DENIED")
	details := denied["details"].(map[string]any)
	paymentID, _ := details["paymentId"].(string)
	if paymentID == "" || details["decisionLogId"] == nil {
		t.Fatalf("the refusal names no payment or decision: %v", denied)
	}
	pay := c.Get("/v1/payments/"+paymentID).Expect(t, http.StatusOK).JSON(t)
	if reason, _ := pay["failureReason"].(string); pay["status"] != "FAILED" || !strings.HasPrefix(reason, "POLICY_DENIED: PER_TXN_LIMIT") {
		t.Fatalf("the denied sweep's payment: %v", pay)
	}
	if n := len(sweeps(t, ten.Root, id)); n != 0 {
		t.Fatalf("a declined sweep was recorded: %d sweeps", n)
	}
}
