package cards

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

func serverWith(t *testing.T, mode policy.Mode, wrap func(ports.Store) ports.Store) *harness.Env {
	t.Helper()
	return harness.NewServer(t, func(c *wiring.Config) {
		c.PolicyEnforcement = mode
		c.WrapStore = wrap
	})
}

func createPolicy(t *testing.T, c *harness.Client, doc map[string]any) string {
	t.Helper()
	doc["schemaVersion"] = 1
	return c.Post("/v1/policies", map[string]any{"name": "card gate", "document": doc}).Expect(t, 201).JSON(t)["policyId"].(string)
}

func attach(t *testing.T, c *harness.Client, policyID, subjectType, subjectID string) {
	t.Helper()
	c.Post("/v1/policies/"+policyID+"/attachments", map[string]any{"subjectType": subjectType, "subjectId": subjectID}).Expect(t, 201)
}

// TestCards_PolicyEnforce: in enforce mode the card's policy is cumulative over its windows and
// declines with POLICY_DENIED, pinning the decision; the most restrictive of policy and card
// limits wins.
func TestCards_PolicyEnforce(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 100)
	id := issue(t, ten.Root, w, map[string]any{"dailyUsd": "50"})["cardId"].(string)
	pol := createPolicy(t, ten.Root, map[string]any{"limits": map[string]any{"dailyUsd": "10"}})
	attach(t, ten.Root, pol, "card", id)
	c := serverWith(t, policy.ModeEnforce, nil).Client(t).WithKey(ten.RootKey)

	a := authorize(t, c, id, "6", "5411")
	if a["status"] != "APPROVED" || a["policyId"] != pol || a["policyDecisionId"] == nil {
		t.Fatalf("within the policy: %v", a)
	}
	d := authorize(t, c, id, "6", "5411") // 6 + 6 > the policy's 10, within the card's 50
	if d["status"] != "DECLINED" || declineReason(d) != "POLICY_DENIED" || d["policyId"] != pol || d["holdTransferId"] != nil {
		t.Fatalf("cumulative policy cap: %v", d)
	}
	if b := mirrorBalance(t, w.ID); b.PendingDebits != 6_000_000 {
		t.Fatalf("holds: %+v", b)
	}
	// Log mode (the shared server) records the would-be decline and approves.
	if l := authorize(t, ten.Root, id, "6", "5411"); l["status"] != "APPROVED" || l["policyDecisionId"] == nil {
		t.Fatalf("log mode: %v", l)
	}
	// Off evaluates nothing.
	if o := authorize(t, serverWith(t, policy.ModeOff, nil).Client(t).WithKey(ten.RootKey), id, "1", "5411"); o["policyDecisionId"] != nil {
		t.Fatalf("off mode: %v", o)
	}
}

// TestCards_PolicyFromWallet: a card without its own attachment follows its wallet's policy;
// with its own too, both are evaluated and the most restrictive wins, whichever it is.
func TestCards_PolicyFromWallet(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 100)
	id := issue(t, ten.Root, w, nil)["cardId"].(string)
	pol := createPolicy(t, ten.Root, map[string]any{"mcc": map[string]any{"blocked": []string{"7995"}}})
	attach(t, ten.Root, pol, "wallet", w.ID)
	c := serverWith(t, policy.ModeEnforce, nil).Client(t).WithKey(ten.RootKey)
	if d := authorize(t, c, id, "1", "7995"); declineReason(d) != "POLICY_DENIED" || d["policyId"] != pol {
		t.Fatalf("wallet policy: %v", d)
	}
	// A looser policy of the card's own does not lift the wallet's: the most restrictive wins.
	own := createPolicy(t, ten.Root, map[string]any{"limits": map[string]any{"perTransactionUsd": "3"}})
	attach(t, ten.Root, own, "card", id)
	if d := authorize(t, c, id, "1", "7995"); declineReason(d) != "POLICY_DENIED" || d["policyId"] != pol {
		t.Fatalf("the wallet's deny under a looser card policy: %v", d)
	}
	// And the card's stricter one applies where the wallet's allows.
	if d := authorize(t, c, id, "4", "5411"); declineReason(d) != "POLICY_DENIED" || d["policyId"] != own {
		t.Fatalf("the card's deny under an allowing wallet policy: %v", d)
	}
	if a := authorize(t, c, id, "1", "5411"); a["status"] != "APPROVED" {
		t.Fatalf("within both policies: %v", a)
	}
}

type failingStore struct{ ports.Store }

func (s failingStore) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	return s.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return fn(ctx, failingTx{tx}) })
}

type failingTx struct{ ports.Tx }

func (t failingTx) Policies() ports.PolicyRepo { return failingPolicies{t.Tx.Policies()} }

type failingPolicies struct{ ports.PolicyRepo }

func (failingPolicies) FindSubjectAttachment(context.Context, string, core.Environment, policy.SubjectType, string) (policy.Attachment, bool, error) {
	return policy.Attachment{}, false, errors.New("injected: policy store unavailable")
}

// TestCards_PolicyFailsClosed: with a policy attached, a policy subsystem error declines
// POLICY_UNAVAILABLE in enforce mode (and holds nothing); log mode approves.
func TestCards_PolicyFailsClosed(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 100)
	id := issue(t, ten.Root, w, nil)["cardId"].(string)
	attach(t, ten.Root, createPolicy(t, ten.Root, map[string]any{"limits": map[string]any{"dailyUsd": "50"}}), "card", id)
	wrap := func(s ports.Store) ports.Store { return failingStore{s} }
	d := authorize(t, serverWith(t, policy.ModeEnforce, wrap).Client(t).WithKey(ten.RootKey), id, "1", "5411")
	if d["status"] != "DECLINED" || declineReason(d) != "POLICY_UNAVAILABLE" {
		t.Fatalf("enforce: %v", d)
	}
	if a := authorize(t, serverWith(t, policy.ModeLog, wrap).Client(t).WithKey(ten.RootKey), id, "1", "5411"); a["status"] != "APPROVED" {
		t.Fatalf("log: %v", a)
	}
	if b := mirrorBalance(t, w.ID); b.PendingDebits != 1_000_000 {
		t.Fatalf("holds: %+v", b)
	}
	ten.Root.Post("/v1/policies/pol_x/attachments", map[string]any{"subjectType": "card", "subjectId": id}).ExpectError(t, http.StatusNotFound, "POLICY_NOT_FOUND")
}

// TestCards_NoPolicyAttachedSkipsThePolicyStore: the card's locking read reports that no policy
// is attached to the card, its wallet or its agent, and the gate is then not run at all, even in
// enforce mode with a policy store that fails: the authorization approves on the card's rules.
// Once a policy is attached to the card's wallet, the gate runs again (and here fails closed).
func TestCards_NoPolicyAttachedSkipsThePolicyStore(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 100)
	id := issue(t, ten.Root, w, nil)["cardId"].(string)
	c := serverWith(t, policy.ModeEnforce, func(s ports.Store) ports.Store { return failingStore{s} }).Client(t).WithKey(ten.RootKey)
	if a := authorize(t, c, id, "1", "5411"); a["status"] != "APPROVED" || a["policyDecisionId"] != nil {
		t.Fatalf("no policy attached: %v", a)
	}
	attach(t, ten.Root, createPolicy(t, ten.Root, map[string]any{"limits": map[string]any{"dailyUsd": "50"}}), "wallet", w.ID)
	if d := authorize(t, c, id, "1", "5411"); d["status"] != "DECLINED" || declineReason(d) != "POLICY_UNAVAILABLE" {
		t.Fatalf("a wallet policy attached: %v", d)
	}
}
