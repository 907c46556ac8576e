package agents_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/agents"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

// The agents use cases run on ports/fake (whose agent repository passes the same contract
// suite as Postgres): each case states a rule and the envelope code or state it leads to.

type fixedClock struct{ now time.Time }

func (c fixedClock) Now() time.Time { return c.now }

// noWallets stands in for the capability these tests do not reach.
type noWallets struct{}

func (noWallets) ProvisionAgentWallet(context.Context, auth.Principal, agents.WalletInput) (wallet.Wallet, error) {
	return wallet.Wallet{}, errors.New("not in this test")
}

var now = time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)

func newService(t *testing.T) (*agents.Service, *fake.Store) {
	t.Helper()
	store := fake.NewStore()
	svc, err := agents.New(agents.Deps{Store: store, Clock: fixedClock{now}, Wallets: noWallets{}})
	if err != nil {
		t.Fatal(err)
	}
	return svc, store
}

func principal(tenantID string, env core.Environment, scopes ...auth.Scope) auth.Principal {
	return auth.Principal{Kind: auth.KindAPIKey, TenantID: tenantID, Environment: env, Scopes: scopes, KeyID: "key_owner"}
}

var owner = principal("ten_a", core.EnvTest, auth.ScopeRoot)

func wantCode(t *testing.T, err error, code core.Code) {
	t.Helper()
	var e *core.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("err = %v, want %s", err, code)
	}
}

func usd(s string) agents.CapInput { return agents.CapInput{Set: true, Value: &s} }

// TestAgentUseCases_RefuseAndChangeNothing: bad input, a missing scope, LIVE and another
// tenant's agent each answer their code and commit nothing.
func TestAgentUseCases_RefuseAndChangeNothing(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		run  func(svc *agents.Service, a agent.Agent) error
		code core.Code
	}{
		{"an empty name", func(svc *agents.Service, _ agent.Agent) error {
			_, err := svc.CreateAgent(ctx, owner, "  ")
			return err
		}, core.CodeValidationFailed},
		{"a key without agents:manage", func(svc *agents.Service, _ agent.Agent) error {
			_, err := svc.CreateAgent(ctx, principal("ten_a", core.EnvTest, auth.ScopeAgentsRead), "bot")
			return err
		}, core.CodeInsufficientScope},
		{"a LIVE key", func(svc *agents.Service, _ agent.Agent) error {
			_, err := svc.CreateAgent(ctx, principal("ten_a", core.EnvLive, auth.ScopeRoot), "bot")
			return err
		}, core.CodeSandboxOnly},
		{"another tenant's agent", func(svc *agents.Service, a agent.Agent) error {
			_, err := svc.SuspendAgent(ctx, principal("ten_b", core.EnvTest, auth.ScopeRoot), a.ID)
			return err
		}, agent.CodeNotFound},
		{"a zero cap", func(svc *agents.Service, a agent.Agent) error {
			_, err := svc.PutLimits(ctx, owner, a.ID, agents.LimitsInput{DailyUSD: usd("10"), WeeklyUSD: usd("0")})
			return err
		}, core.CodeValidationFailed},
		{"a key for another tenant's agent", func(svc *agents.Service, a agent.Agent) error {
			_, err := svc.CreateAgentKey(ctx, principal("ten_b", core.EnvTest, auth.ScopeRoot), a.ID, agents.KeyInput{Name: "k", Scopes: []string{"*"}})
			return err
		}, agent.CodeNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, store := newService(t)
			a, err := svc.CreateAgent(ctx, owner, "bot")
			if err != nil {
				t.Fatal(err)
			}
			commits := store.Commits()
			wantCode(t, tc.run(svc, a), tc.code)
			got, err := svc.GetAgent(ctx, owner, a.ID)
			if store.Commits() != commits+1 || err != nil || got.Status != agent.StatusActive || got.Limits != (agent.Limits{}) {
				t.Errorf("a refused call changed the store: %+v, %v", got, err)
			}
		})
	}
}

// TestAgentUseCases_SuspendAndReactivate: suspend and reactivate move the status (each once,
// repeated calls answer it unchanged), a suspended agent fails RequireActiveAgent with
// AGENT_SUSPENDED, and each change is an event.
func TestAgentUseCases_SuspendAndReactivate(t *testing.T) {
	ctx := context.Background()
	svc, store := newService(t)
	a, err := svc.CreateAgent(ctx, owner, "bot")
	if err != nil || a.Status != agent.StatusActive {
		t.Fatalf("CreateAgent = %+v, %v", a, err)
	}
	for _, step := range []struct {
		call func() (agent.Agent, error)
		want agent.Status
	}{
		{func() (agent.Agent, error) { return svc.SuspendAgent(ctx, owner, a.ID) }, agent.StatusSuspended},
		{func() (agent.Agent, error) { return svc.SuspendAgent(ctx, owner, a.ID) }, agent.StatusSuspended},
		{func() (agent.Agent, error) { return svc.ReactivateAgent(ctx, owner, a.ID) }, agent.StatusActive},
	} {
		got, err := step.call()
		if err != nil || got.Status != step.want || (got.SuspendedAt != nil) != (step.want == agent.StatusSuspended) {
			t.Fatalf("transition = %+v, %v; want %s", got, err, step.want)
		}
		if step.want == agent.StatusSuspended {
			wantCode(t, svc.RequireActiveAgent(ctx, "ten_a", core.EnvTest, a.ID), agent.CodeSuspended)
		}
	}
	if err := svc.RequireActiveAgent(ctx, "ten_a", core.EnvTest, a.ID); err != nil {
		t.Errorf("a reactivated agent: %v", err)
	}
	var types []string
	for _, e := range store.Events(a.ID) {
		types = append(types, e.Type)
	}
	if want := []string{"agent.created", "agent.suspended", "agent.reactivated"}; !slices.Equal(types, want) {
		t.Errorf("events = %v, want %v", types, want)
	}
}

// TestAgentUseCases_Limits: a PUT changes only the caps it sends, null clears one.
func TestAgentUseCases_Limits(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	a, _ := svc.CreateAgent(ctx, owner, "bot")
	got, err := svc.PutLimits(ctx, owner, a.ID, agents.LimitsInput{DailyUSD: usd("10"), MonthlyUSD: usd("100")})
	if err != nil || got.Limits.Daily == nil || *got.Limits.Daily != 10_000_000 || got.Limits.Monthly == nil {
		t.Fatalf("PutLimits = %+v, %v", got.Limits, err)
	}
	got, err = svc.PutLimits(ctx, owner, a.ID, agents.LimitsInput{MonthlyUSD: agents.CapInput{Set: true}})
	if err != nil || got.Limits.Daily == nil || got.Limits.Monthly != nil {
		t.Errorf("clearing monthly = %+v, %v; want daily kept, monthly cleared", got.Limits, err)
	}
}

// TestAgentUseCases_CardSpend: an authorization within the caps consumes budget once (a
// repeat of its id consumes nothing), one past a cap is AGENT_LIMIT, a suspended agent's is
// AGENT_SUSPENDED, and a release or a partial capture gives budget back.
func TestAgentUseCases_CardSpend(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	a, _ := svc.CreateAgent(ctx, owner, "bot")
	if _, err := svc.PutLimits(ctx, owner, a.ID, agents.LimitsInput{DailyUSD: usd("10")}); err != nil {
		t.Fatal(err)
	}
	consume := func(id string, amount int64) string {
		t.Helper()
		decline, err := svc.ConsumeAgentCardSpend(ctx, "ten_a", core.EnvTest, a.ID, id, amount, now)
		if err != nil {
			t.Fatal(err)
		}
		return decline
	}
	for _, step := range []struct {
		do   func() string
		want string
	}{
		{func() string { return consume("cau_1", 6_000_000) }, ""},
		{func() string { return consume("cau_1", 6_000_000) }, ""}, // the same id: no second charge
		{func() string { return consume("cau_2", 6_000_000) }, string(agent.CodeLimit)},
		{func() string {
			noErr(t, svc.AdjustAgentCardSpend(ctx, owner.TenantID, "cau_1", 2_000_000))
			return consume("cau_3", 6_000_000)
		}, ""},
		{func() string { return consume("cau_4", 3_000_000) }, string(agent.CodeLimit)},
		{func() string {
			noErr(t, svc.ReleaseAgentCardSpend(ctx, owner.TenantID, "cau_3"))
			return consume("cau_5", 3_000_000)
		}, ""},
		{func() string { _, _ = svc.SuspendAgent(ctx, owner, a.ID); return consume("cau_6", 1) }, string(agent.CodeSuspended)},
	} {
		if got := step.do(); got != step.want {
			t.Fatalf("decline = %q, want %q", got, step.want)
		}
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAgentUseCases_KeyNeverHoldsForbiddenScopes: an agent key asked for "*" holds none of the
// scopes agents may not hold, and is stored as the agent's.
func TestAgentUseCases_KeyNeverHoldsForbiddenScopes(t *testing.T) {
	ctx := context.Background()
	svc, store := newService(t)
	a, _ := svc.CreateAgent(ctx, owner, "bot")
	created, err := svc.CreateAgentKey(ctx, owner, a.ID, agents.KeyInput{Name: "k", Scopes: []string{"*"}})
	if err != nil || created.Plaintext == "" {
		t.Fatalf("CreateAgentKey = %+v, %v", created, err)
	}
	for _, s := range created.Key.Scopes {
		if slices.Contains(agent.ForbiddenScopes, s) || s == auth.ScopeRoot {
			t.Errorf("the agent key holds %s", s)
		}
	}
	_ = store.Read(ctx, func(ctx context.Context, tx ports.Tx) error {
		k, err := tx.APIKeys().FindAPIKey(ctx, "ten_a", core.EnvTest, created.Key.ID)
		if err != nil || k.AgentID != a.ID {
			t.Errorf("stored key = %+v, %v; want the agent's", k, err)
		}
		return nil
	})
}
