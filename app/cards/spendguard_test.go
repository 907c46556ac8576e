package cards

import (
	"context"
	"fmt"
	"testing"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/spend"
	"github.com/corridorhq/corridor/ports/fake"
)

// recordingGuard is the spend guard with a double around it: it records the steps Decide runs
// and whether a call is inside Decide, so a test proves the card's spend policy is decided
// there and nowhere else.
type recordingGuard struct {
	real   *kernel.SpendGuard
	inside bool
	steps  []string
}

func (g *recordingGuard) Decide(ctx context.Context, tx kernel.SpendTx, req spend.Request, checks kernel.SpendChecks) (string, *core.Error, error) {
	g.inside = true
	defer func() { g.inside = false }()
	g.steps = append(g.steps, "decide")
	if policy := checks.Policy; policy != nil {
		checks.Policy = func(ctx context.Context) (*core.Error, error) {
			g.steps = append(g.steps, "policy")
			return policy(ctx)
		}
	}
	if caps := checks.Caps; caps != nil {
		checks.Caps = func(ctx context.Context) error {
			g.steps = append(g.steps, "caps")
			return caps(ctx)
		}
	}
	return g.real.Decide(ctx, tx, req, checks)
}

// insideGate is a policy gate that fails the test when it is asked outside the guard's Decide.
type insideGate struct {
	t       *testing.T
	guard   *recordingGuard
	outcome card.PolicyOutcome
	calls   int
}

func (g *insideGate) GateCardAuthorization(context.Context, card.Card, card.Authorization, card.Spend) (card.PolicyOutcome, error) {
	g.calls++
	if !g.guard.inside {
		g.t.Error("the card's spend policy was evaluated outside kernel.SpendGuard.Decide")
	}
	return g.outcome, nil
}

// TestCards_PolicyIsDecidedInsideTheSpendGuard: an authorization's spend policy runs once, as
// the policy step of the guard's Decide, before the agent's budget; a deny declines the
// authorization POLICY_DENIED with its decision recorded, charges no budget and holds nothing.
func TestCards_PolicyIsDecidedInsideTheSpendGuard(t *testing.T) {
	for _, tc := range []struct {
		name    string
		outcome card.PolicyOutcome
		status  card.AuthStatus
		reason  string
		steps   string
	}{
		{"an allow passes on to the agent's budget and the hold", card.PolicyOutcome{PolicyID: "pol_1", DecisionID: "dec_1"},
			card.AuthApproved, "", "[decide policy caps]"},
		{"a deny declines POLICY_DENIED before the budget", card.PolicyOutcome{Decline: card.ReasonPolicyDenied, PolicyID: "pol_1", DecisionID: "dec_2"},
			card.AuthDeclined, card.ReasonPolicyDenied, "[decide policy]"},
		{"an outage in enforce mode declines POLICY_UNAVAILABLE", card.PolicyOutcome{Decline: card.ReasonPolicyUnavailable},
			card.AuthDeclined, card.ReasonPolicyUnavailable, "[decide policy]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newAuthorizeWorld(t)
			guard := &recordingGuard{real: kernel.NewSpendGuard(w.clock.Now)}
			gate := &insideGate{t: t, guard: guard, outcome: tc.outcome}
			svc, err := New(Deps{Store: w.store, Jobs: fake.Jobs{Store: w.store}, Clock: w.clock, Issuer: &fake.CardIssuer{},
				PolicyGate: gate, AgentBudget: w.budget, Guard: guard})
			if err != nil {
				t.Fatal(err)
			}
			w.svc = svc
			w.fund(t, 100_000_000)
			c := w.newCard(t, card.Limits{}, "agt_1")
			a := w.authorize(t, c, "30")
			if a.Status != tc.status || a.DeclineReason != tc.reason || a.PolicyDecisionID != tc.outcome.DecisionID {
				t.Fatalf("authorization %+v", a)
			}
			if gate.calls != 1 || fmt.Sprint(guard.steps) != tc.steps {
				t.Fatalf("policy gate calls %d, guard steps %v, want %s", gate.calls, guard.steps, tc.steps)
			}
			charged := len(w.budget.charged) == 1
			if charged != (tc.status == card.AuthApproved) {
				t.Fatalf("agent budget charged %v for a %s authorization", w.budget.charged, a.Status)
			}
			want := int64(100_000_000)
			if tc.status == card.AuthApproved {
				want = 70_000_000
			}
			if got := w.available(t); got != want {
				t.Fatalf("available %d, want %d", got, want)
			}
		})
	}
}
