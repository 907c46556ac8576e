package cards

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/issuer"
	"github.com/corridorhq/corridor/app/cards"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ports"
)

// fakeAgentBudget stands in for the agents capability: it allows spend up to limit per agent
// and records what it charged and released.
type fakeAgentBudget struct {
	mu       sync.Mutex
	limit    int64
	charged  map[string]int64 // authorization → amount
	released []string
}

func (f *fakeAgentBudget) ConsumeAgentCardSpend(_ context.Context, _ string, _ core.Environment, _, authorizationID string, amount int64, _ time.Time) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var total int64
	for _, v := range f.charged {
		total += v
	}
	if total+amount > f.limit {
		return "AGENT_LIMIT", nil
	}
	f.charged[authorizationID] = amount
	return "", nil
}

func (f *fakeAgentBudget) AdjustAgentCardSpend(_ context.Context, _, authorizationID string, captured int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.charged[authorizationID]; ok {
		f.charged[authorizationID] = captured
	}
	return nil
}

func (f *fakeAgentBudget) ReleaseAgentCardSpend(_ context.Context, _, authorizationID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.charged, authorizationID)
	f.released = append(f.released, authorizationID)
	return nil
}

// TestCards_AgentCardHook: a card issued through IssueAgentCard is bound to its agent; its
// authorizations charge the agent's budget inside their unit of work (a decline reason from it
// is recorded), a refused hold gives the charge back, a reversal releases it, and a partial
// capture adjusts it.
func TestCards_AgentCardHook(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 10)
	budget := &fakeAgentBudget{limit: 15_000_000, charged: map[string]int64{}}
	svc, err := cards.New(cards.Deps{Store: env().Service.Store, Jobs: env().Service.Jobs, Issuer: issuer.NewSandbox(),
		PolicyGate: env().Service.Policy, AgentBudget: budget,
		Modules: map[core.Environment]ports.CardSpendModule{core.EnvTest: env().Chain}, Chains: map[core.Environment]ports.Chain{core.EnvTest: env().Chain}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := auth.Principal{Kind: auth.KindAPIKey, TenantID: ten.ID, Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeRoot}}
	daily := "20"
	agentID := core.NewID(core.PrefixAgent) // an agent has one card: a fresh id for every run
	c, err := svc.IssueAgentCard(ctx, p, w.ID, agentID, card.LimitsPatch{DailyUsd: card.CapPatch{Set: true, Value: &daily}})
	if err != nil || c.AgentID != agentID || c.Limits.Daily == nil || *c.Limits.Daily != 20_000_000 {
		t.Fatalf("agent card: %+v %v", c, err)
	}
	if got := ten.Root.Get("/v1/cards/"+c.ID).Expect(t, 200).JSON(t); got["agentId"] != agentID {
		t.Fatalf("agentId: %v", got)
	}
	authorize := func(amount string) card.Authorization {
		a, err := svc.Authorize(ctx, p, c.ID, cards.AuthorizeInput{AmountUsd: amount, MCC: "5411", MerchantName: "agent shop"})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	first := authorize("8")
	if first.Status != card.AuthApproved || budget.charged[first.ID] != 8_000_000 {
		t.Fatalf("first: %+v %v", first, budget.charged)
	}
	if d := authorize("8"); d.DeclineReason != "AGENT_LIMIT" {
		t.Fatalf("agent budget: %+v", d)
	}
	// 5 fits the agent's budget but not the Safe (10 less the 8 held): the refused hold gives
	// the agent's charge back (released[0]).
	if d := authorize("5"); d.DeclineReason != card.ReasonInsufficientSafe || len(budget.charged) != 1 {
		t.Fatalf("short Safe: %+v %v", d, budget.charged)
	}
	if _, err := svc.Reverse(ctx, p, first.ID); err != nil {
		t.Fatal(err)
	}
	if len(budget.charged) != 0 || len(budget.released) != 2 || budget.released[1] != first.ID {
		t.Fatalf("reversal: %v %v", budget.charged, budget.released)
	}
	// A partial capture lowers the agent's charge to what it took; a whole capture leaves it.
	partial := authorize("4")
	one := "1"
	if _, err := svc.Capture(ctx, p, partial.ID, cards.CaptureInput{AmountUsd: &one}); err != nil {
		t.Fatal(err)
	}
	whole := authorize("2")
	if _, err := svc.Capture(ctx, p, whole.ID, cards.CaptureInput{}); err != nil {
		t.Fatal(err)
	}
	if budget.charged[partial.ID] != 1_000_000 || budget.charged[whole.ID] != 2_000_000 {
		t.Fatalf("captures: %v", budget.charged)
	}
	if _, err := svc.IssueAgentCard(ctx, p, w.ID, " ", card.LimitsPatch{}); err == nil {
		t.Fatal("an agent card needs an agent")
	}
}
