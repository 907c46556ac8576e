package offramp

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestOfframpPolicy_DecidedByTheSpendGuard: the service balance's spend policy is one of the
// spend guard's steps, decided in its order at acceptance. An agent key is refused by
// confinement before the policy is asked (403 AGENT_WALLET_ONLY; no decision, no payment). A
// payment above the policy's per-transaction cap is denied before anything is reserved: 201
// CANCELED with POLICY_DENIED even when the balance could not have covered it, the balance and
// the ledger untouched. Within the cap the payment reserves and quotes as documented.
func TestOfframpPolicy_DecidedByTheSpendGuard(t *testing.T) {
	t.Parallel()
	p := newPair(t, "4")
	destination(t, p.recipient.Root, serviceBalance)
	polID := capBalance(t, p.sender, map[string]any{"perTransactionUsd": "3"})
	srv := policyServer(t, policy.ModeEnforce, nil)
	c := srv.Client(t).WithKey(p.sender.RootKey)

	agentID := p.sender.Root.Post("/v1/agents", map[string]any{"name": "payer"}).Expect(t, http.StatusCreated).JSON(t)["id"].(string)
	key := p.sender.Root.Post("/v1/agents/"+agentID+"/keys", map[string]any{"name": "agent key", "scopes": []string{"*"}}).
		Expect(t, http.StatusCreated).JSON(t)["key"].(string)
	e := srv.Client(t).WithKey(key).Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "5"}).
		ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
	if d, _ := e["details"].(map[string]any); d["reason"] != "AGENT_WALLET_ONLY" {
		t.Fatalf("agent key: %v", e)
	}
	if n := p.sender.Root.Get("/v1/offramp/payments").Expect(t, http.StatusOK).JSON(t)["total"]; n != float64(0) {
		t.Fatalf("payments after the agent's refusal: %v", n)
	}
	if rows := offrampDecisions(t, p.sender.ID, ""); len(rows) != 0 {
		t.Fatalf("the policy was asked for an agent confinement refuses: %+v", rows)
	}

	// 5 USD is above the cap and above the 4 USD balance: the policy decides first.
	denied := c.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "5"}).Expect(t, http.StatusCreated).JSON(t)
	expectCanceledByPolicy(t, denied)
	id := denied["paymentId"].(string)
	expectDecision(t, p.sender, polID, id, 5*usd, policy.ModeEnforce, policy.CodePerTxnLimit)
	harness.ExpectServiceBalance(t, p.sender.Root, 4*usd, 0)
	if l := harness.PaymentLedger(t, env().DatabaseURL, id); len(l) != 0 {
		t.Fatalf("a denied payment touched the ledger: %v", l)
	}

	ok := c.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "3"}).Expect(t, http.StatusCreated).JSON(t)
	if ok["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("within the cap: %v", ok)
	}
	expectDecision(t, p.sender, polID, ok["paymentId"].(string), 3*usd, policy.ModeEnforce, policy.ReasonAllowed)
	harness.ExpectServiceBalance(t, p.sender.Root, 1*usd, 3*usd)
}

// TestOfframpPolicy_ParallelIntakesCountEachOther: the guard decides the policy before the
// reservation, so the policy itself serialises one balance's decisions (its attachment is
// locked for the unit of work): 8 parallel payments of 3 USD against a 10 USD day admit exactly
// 3 and cancel the rest, and only the admitted 9 USD is reserved. The server runs every unit of
// work in its own transaction (no commit pipeline, whose batches run their units one after the
// other anyway), where only that lock orders them.
func TestOfframpPolicy_ParallelIntakesCountEachOther(t *testing.T) {
	t.Parallel()
	p := newPair(t, "100")
	destination(t, p.recipient.Root, serviceBalance)
	capBalance(t, p.sender, map[string]any{"dailyUsd": "10"})
	srv := harness.NewServer(t, func(c *wiring.Config) {
		c.PolicyEnforcement = policy.ModeEnforce
		c.StorePipeline = postgres.PipelineOptions{} // no lanes: each unit its own transaction
	})
	c := requestsOnly(t, srv).Client(t).WithKey(p.sender.RootKey)

	var wg sync.WaitGroup
	answers := make([]*harness.Response, 8)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = c.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "3"})
		}()
	}
	wg.Wait()
	admitted, days := 0, map[string]bool{}
	for _, r := range answers {
		m := r.Expect(t, http.StatusCreated).JSON(t)
		days[m["createdAt"].(string)[:10]] = true
		switch m["status"] {
		case "AWAITING_RECIPIENT_CONFIRMATION":
			admitted++
		case "CANCELED":
			expectCanceledByPolicy(t, m)
		default:
			t.Fatalf("parallel payment: %v", m)
		}
	}
	if len(days) > 1 {
		t.Skip("the payments straddle UTC midnight; the daily window is a calendar day")
	}
	if admitted != 3 {
		t.Fatalf("%d payments of 3 USD admitted against a 10 USD day, want 3", admitted)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 91*usd, 9*usd)
}

// requestsOnly stops a second server's job workers, so it serves its test's requests and
// nothing else: the workers of a server with a modified configuration (a failing policy store,
// another store mode) would otherwise take the package's other tests' jobs, and decide them
// under that configuration (a payout re-checked against a failing policy store is held).
func requestsOnly(t *testing.T, srv *harness.Env) *harness.Env {
	t.Helper()
	if err := srv.Service.StopWorkers(context.Background()); err != nil {
		t.Fatal(err)
	}
	return srv
}
