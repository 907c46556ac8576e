package cards

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// Fast tests of Authorize over ports/fake: no database, the real ledger rules.

// scriptedGate answers every gated authorization with one outcome and counts its calls.
type scriptedGate struct {
	outcome card.PolicyOutcome
	calls   int
}

func (g *scriptedGate) GateCardAuthorization(context.Context, card.Card, card.Authorization, card.Spend) (card.PolicyOutcome, error) {
	g.calls++
	return g.outcome, nil
}

// agentWindows is an agent budget with one cap, as the agents capability keeps it: consumed
// per authorization, released by id.
type agentWindows struct {
	limit    int64
	charged  map[string]int64
	released []string
}

func (b *agentWindows) ConsumeAgentCardSpend(_ context.Context, _ string, _ core.Environment, _, authorizationID string, amount int64, _ time.Time) (string, error) {
	total := amount
	for _, v := range b.charged {
		total += v
	}
	if total > b.limit {
		return card.ReasonAgentLimitExceeded, nil
	}
	b.charged[authorizationID] = amount
	return "", nil
}

func (b *agentWindows) ReleaseAgentCardSpend(_ context.Context, _, authorizationID string) error {
	delete(b.charged, authorizationID)
	b.released = append(b.released, authorizationID)
	return nil
}

func (b *agentWindows) AdjustAgentCardSpend(_ context.Context, _, authorizationID string, captured int64) error {
	b.charged[authorizationID] = captured
	return nil
}

type authorizeWorld struct {
	store  *fake.Store
	svc    *Service
	gate   *scriptedGate
	budget *agentWindows
	clock  *fake.Clock
	p      auth.Principal
}

func newAuthorizeWorld(t *testing.T) *authorizeWorld {
	t.Helper()
	w := &authorizeWorld{store: fake.NewStore(), gate: &scriptedGate{}, budget: &agentWindows{limit: 1 << 40, charged: map[string]int64{}},
		clock: &fake.Clock{At: time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC)}}
	svc, err := New(Deps{Store: w.store, Jobs: fake.Jobs{Store: w.store}, Clock: w.clock, Issuer: &fake.CardIssuer{},
		PolicyGate: w.gate, AgentBudget: w.budget})
	if err != nil {
		t.Fatal(err)
	}
	w.svc = svc
	w.p = auth.Principal{Kind: auth.KindAPIKey, TenantID: core.NewID(core.PrefixTenant), Environment: core.EnvTest, Scopes: []auth.Scope{auth.ScopeRoot}}
	return w
}

// fund credits the tenant's service balance from the outside world.
func (w *authorizeWorld) fund(t *testing.T, amount int64) {
	t.Helper()
	err := w.store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		accs, err := tx.Ledger().OpenAccounts(ctx, w.clock.Now(), ledger.World(core.EnvTest, kernel.ServiceAsset, "test"),
			ledger.TenantAvailable(core.EnvTest, kernel.ServiceAsset, w.p.TenantID))
		if err != nil {
			return err
		}
		_, _, err = tx.Ledger().Post(ctx, w.clock.Now(), ledger.TransferSpec{Reference: "fund:" + core.RandomToken(6), Type: ledger.TypePosted,
			Environment: core.EnvTest, Asset: kernel.ServiceAsset, Postings: ledger.Move(accs[0].ID, accs[1].ID, amount)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// newCard stores an active funding-account card of the tenant.
func (w *authorizeWorld) newCard(t *testing.T, limits card.Limits, agentID string) card.Card {
	t.Helper()
	c := card.Card{ID: core.NewID(core.PrefixCard), TenantID: w.p.TenantID, Environment: core.EnvTest, Funding: card.FundingAccount,
		AgentID: agentID, Issuer: "fake", Status: card.StatusActive, Limits: limits, CreatedAt: w.clock.Now(), UpdatedAt: w.clock.Now()}
	if err := w.store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error { return tx.Cards().CreateCard(ctx, c) }); err != nil {
		t.Fatal(err)
	}
	return c
}

func (w *authorizeWorld) available(t *testing.T) int64 {
	t.Helper()
	a, err := w.store.Book().FindAccount(core.EnvTest, kernel.ServiceAsset, ledger.TenantAvailableRef(w.p.TenantID))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := w.store.Book().Balance(a.ID)
	return b.Available()
}

func (w *authorizeWorld) authorize(t *testing.T, c card.Card, amount string) card.Authorization {
	t.Helper()
	a, err := w.svc.Authorize(context.Background(), w.p, c.ID, AuthorizeInput{AmountUsd: amount, MCC: "5411", MerchantName: "Grocer"})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (w *authorizeWorld) spend(t *testing.T, c card.Card) card.Spend {
	t.Helper()
	var s card.Spend
	_ = w.store.Read(context.Background(), func(ctx context.Context, tx ports.Tx) (err error) {
		s, err = tx.Cards().WindowSpend(ctx, c.TenantID, c.ID, card.WindowsAt(w.clock.Now()))
		return err
	})
	return s
}

func TestCards_Authorize(t *testing.T) {
	t.Run("an approval holds the amount on the service balance and consumes the windows", func(t *testing.T) {
		w := newAuthorizeWorld(t)
		w.fund(t, 100_000_000)
		c := w.newCard(t, card.Limits{}, "")
		a := w.authorize(t, c, "30")
		if a.Status != card.AuthApproved || a.HoldTransferID == "" || a.DeclineReason != "" {
			t.Fatalf("authorization %+v", a)
		}
		if got := w.available(t); got != 70_000_000 {
			t.Fatalf("available after a 30 USD hold: %d", got)
		}
		hold, err := w.store.Book().Transfer(a.HoldTransferID)
		if err != nil || hold.Transfer.Type != ledger.TypePending || hold.State.Status != ledger.StatusPending || hold.Transfer.HoldAmount() != 30_000_000 {
			t.Fatalf("hold %+v, %v", hold, err)
		}
		if s := w.spend(t, c); s != (card.Spend{Daily: 30_000_000, Weekly: 30_000_000, Monthly: 30_000_000}) {
			t.Fatalf("window spend %+v", s)
		}
		events := w.store.Events(a.ID)
		if len(events) != 1 || events[0].Type != "card_authorization.approved" {
			t.Fatalf("events %+v", events)
		}
		if w.gate.calls != 1 {
			t.Fatalf("the policy gate ran %d times", w.gate.calls)
		}
	})
	t.Run("a short balance declines INSUFFICIENT_FUNDS and holds nothing", func(t *testing.T) {
		w := newAuthorizeWorld(t)
		w.fund(t, 10_000_000)
		c := w.newCard(t, card.Limits{}, "")
		a := w.authorize(t, c, "10.000001")
		if a.Status != card.AuthDeclined || a.DeclineReason != card.ReasonInsufficientFunds || a.HoldTransferID != "" {
			t.Fatalf("authorization %+v", a)
		}
		if got := w.available(t); got != 10_000_000 {
			t.Fatalf("available after a decline: %d", got)
		}
		if s := w.spend(t, c); s != (card.Spend{}) {
			t.Fatalf("a decline consumed the windows: %+v", s)
		}
		if stored := w.store.CardAuthorizations(c.ID); len(stored) != 1 || stored[0].Status != card.AuthDeclined {
			t.Fatalf("stored %+v: every decision is recorded", stored)
		}
	})
	t.Run("the card's own limits decide before the policy gate", func(t *testing.T) {
		w := newAuthorizeWorld(t)
		w.fund(t, 100_000_000)
		perTxn, daily := int64(20_000_000), int64(25_000_000)
		c := w.newCard(t, card.Limits{PerTransaction: &perTxn, Daily: &daily}, "")
		if a := w.authorize(t, c, "20.01"); a.DeclineReason != card.ReasonPerTxnLimit {
			t.Fatalf("over the per-transaction limit: %+v", a)
		}
		if a := w.authorize(t, c, "20"); a.Status != card.AuthApproved {
			t.Fatalf("within the limits: %+v", a)
		}
		if a := w.authorize(t, c, "5.01"); a.DeclineReason != card.ReasonDailyCap {
			t.Fatalf("over the daily cap with 20 spent: %+v", a)
		}
		if w.gate.calls != 1 {
			t.Fatalf("the policy gate ran %d times; only the approval reaches it", w.gate.calls)
		}
	})
	t.Run("a policy decline holds nothing and keeps the decision's ids", func(t *testing.T) {
		w := newAuthorizeWorld(t)
		w.fund(t, 100_000_000)
		w.gate.outcome = card.PolicyOutcome{Decline: card.ReasonPolicyDenied, PolicyID: "pol_1", DecisionID: "dec_1"}
		c := w.newCard(t, card.Limits{}, "")
		a := w.authorize(t, c, "1")
		if a.DeclineReason != card.ReasonPolicyDenied || a.PolicyID != "pol_1" || a.PolicyDecisionID != "dec_1" || a.HoldTransferID != "" {
			t.Fatalf("authorization %+v", a)
		}
		if got := w.available(t); got != 100_000_000 {
			t.Fatalf("available after a policy decline: %d", got)
		}
	})
	t.Run("an agent's charge is given back when the ledger refuses the hold", func(t *testing.T) {
		w := newAuthorizeWorld(t)
		w.fund(t, 5_000_000)
		c := w.newCard(t, card.Limits{}, core.NewID(core.PrefixAgent))
		a := w.authorize(t, c, "6")
		if a.DeclineReason != card.ReasonInsufficientFunds {
			t.Fatalf("authorization %+v", a)
		}
		if len(w.budget.charged) != 0 || len(w.budget.released) != 1 || w.budget.released[0] != a.ID {
			t.Fatalf("agent budget: charged %v, released %v", w.budget.charged, w.budget.released)
		}
		w.budget.limit = 3_000_000
		if a := w.authorize(t, c, "4"); a.DeclineReason != card.ReasonAgentLimitExceeded {
			t.Fatalf("over the agent's cap: %+v", a)
		}
		if a := w.authorize(t, c, "3"); a.Status != card.AuthApproved || w.budget.charged[a.ID] != 3_000_000 {
			t.Fatalf("within the agent's cap: %+v, charged %v", a, w.budget.charged)
		}
	})
	t.Run("LIVE callers and unknown cards are refused", func(t *testing.T) {
		w := newAuthorizeWorld(t)
		live := w.p
		live.Environment = core.EnvLive
		_, err := w.svc.Authorize(context.Background(), live, core.NewID(core.PrefixCard), AuthorizeInput{AmountUsd: "1", MCC: "5411", MerchantName: "x"})
		if !errors.Is(err, &core.Error{Code: core.CodeSandboxOnly}) {
			t.Fatalf("LIVE: %v", err)
		}
		_, err = w.svc.Authorize(context.Background(), w.p, core.NewID(core.PrefixCard), AuthorizeInput{AmountUsd: "1", MCC: "5411", MerchantName: "x"})
		if !errors.Is(err, &core.Error{Code: card.CodeCardNotFound}) {
			t.Fatalf("unknown card: %v", err)
		}
	})
}
