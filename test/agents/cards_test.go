package agents

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/ports"

	"github.com/corridorhq/corridor/test/harness"
)

// consume runs the card seam as the cards capability will: inside its own unit of work.
func consume(t *testing.T, tenantID, agentID, authID string, amount int64, at time.Time) string {
	t.Helper()
	var decline string
	err := env().Service.Store.InTx(context.Background(), func(ctx context.Context, _ ports.Tx) error {
		var err error
		decline, err = env().Service.Agents.ConsumeAgentCardSpend(ctx, tenantID, core.EnvTest, agentID, authID, amount, at)
		return err
	})
	if err != nil {
		t.Errorf("consume %s: %v", authID, err)
	}
	return decline
}

// TestAgents_CardSpendSerialized: 32 concurrent card authorizations against a daily cap that
// fits 10 approve exactly 10; a reversal credits the original day's window, not today's; a
// suspended agent's authorizations are declined AGENT_SUSPENDED.
func TestAgents_CardSpendSerialized(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := createAgent(t, ten.Root, "card spender")["id"].(string)
	put(ten.Root, "/v1/agents/"+id+"/limits", map[string]any{"dailyUsd": "10"}).Expect(t, http.StatusOK)
	now := time.Now().UTC()

	var wg sync.WaitGroup
	declines := make([]string, 32)
	for i := range declines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			declines[i] = consume(t, ten.ID, id, core.NewID("auth"), 1_000_000, now)
		}()
	}
	wg.Wait()
	approved := 0
	for _, d := range declines {
		switch d {
		case "":
			approved++
		case string(agent.CodeLimit):
		default:
			t.Fatalf("decline %q", d)
		}
	}
	if approved != 10 {
		t.Fatalf("%d of 32 approved against a cap that fits 10", approved)
	}

	// The cap is reached today: one base unit more is declined, and an authorization
	// consumed twice is decided once.
	if d := consume(t, ten.ID, id, "auth_over_"+id, 1, now); d != string(agent.CodeLimit) {
		t.Fatalf("over the cap: %q", d)
	}
	// An authorization of yesterday, released today, credits yesterday, not today.
	yesterday := now.AddDate(0, 0, -1)
	if d := consume(t, ten.ID, id, "auth_yesterday_"+id, 1_000_000, yesterday); d != "" {
		t.Fatalf("yesterday: %q", d)
	}
	if d := consume(t, ten.ID, id, "auth_yesterday_"+id, 1_000_000, yesterday); d != "" {
		t.Fatalf("the same authorization again: %q", d)
	}
	release(t, ten.ID, "auth_yesterday_"+id)
	if d := consume(t, ten.ID, id, "auth_after_old_release_"+id, 1, now); d != string(agent.CodeLimit) {
		t.Fatalf("releasing yesterday's authorization credited today: %q", d)
	}
	// Releasing one of today's authorizations credits today; releasing twice credits once.
	first := "auth_today_" + id
	put(ten.Root, "/v1/agents/"+id+"/limits", map[string]any{"dailyUsd": "11"}).Expect(t, http.StatusOK)
	if d := consume(t, ten.ID, id, first, 1_000_000, now); d != "" {
		t.Fatalf("the eleventh dollar: %q", d)
	}
	if d := consume(t, ten.ID, id, "auth_twelfth_"+id, 1, now); d != string(agent.CodeLimit) {
		t.Fatalf("over 11: %q", d)
	}
	// Another tenant's release of the same authorization id finds nothing of this tenant's.
	release(t, "ten_someone_else", first)
	if d := consume(t, ten.ID, id, "auth_after_foreign_release_"+id, 1, now); d != string(agent.CodeLimit) {
		t.Fatalf("another tenant's release credited this agent: %q", d)
	}
	release(t, ten.ID, first)
	release(t, ten.ID, first)
	if d := consume(t, ten.ID, id, "auth_after_release_"+id, 1_000_000, now); d != "" {
		t.Fatalf("after a release: %q", d)
	}
	if d := consume(t, ten.ID, id, "auth_after_release_2_"+id, 1, now); d != string(agent.CodeLimit) {
		t.Fatalf("a double release credited twice: %q", d)
	}

	ten.Root.Post("/v1/agents/"+id+"/suspend", nil).Expect(t, http.StatusOK)
	if d := consume(t, ten.ID, id, "auth_suspended_"+id, 1, yesterday); d != string(agent.CodeSuspended) {
		t.Fatalf("suspended: %q", d)
	}
}

func release(t *testing.T, tenantID, authID string) {
	t.Helper()
	err := env().Service.Store.InTx(context.Background(), func(ctx context.Context, _ ports.Tx) error {
		return env().Service.Agents.ReleaseAgentCardSpend(ctx, tenantID, authID)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAgents_LimitUnavailableFailsClosed: when the spend windows cannot be read, a payment
// from the agent's wallet is refused AGENT_LIMIT_UNAVAILABLE and nothing is recorded, and a
// card authorization is not approved.
func TestAgents_LimitUnavailableFailsClosed(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	o := harness.NewOwner(t)
	id := createAgent(t, ten.Root, "unreadable")["id"].(string)
	walletID := agentWallet(t, ten, id, o, "")
	unreadable.Store(id, true)
	ten.Root.Post("/v1/payments", payBody(walletID, "1")).ExpectError(t, http.StatusServiceUnavailable, "AGENT_LIMIT_UNAVAILABLE")
	if got := ten.Root.Get("/v1/payments").Expect(t, 200).JSON(t); got["total"] != float64(0) {
		t.Fatalf("a refused payment was recorded: %v", got)
	}
	err := env().Service.Store.InTx(context.Background(), func(ctx context.Context, _ ports.Tx) error {
		d, err := env().Service.Agents.ConsumeAgentCardSpend(ctx, ten.ID, core.EnvTest, id, "auth_unreadable_"+id, 1, time.Now())
		if d != "" {
			t.Errorf("decline %q with an error", d)
		}
		return err
	})
	if err == nil {
		t.Fatal("a card authorization was decided without its windows")
	}
	unreadable.Delete(id)
	ten.Root.Post("/v1/payments", payBody(walletID, "1")).Expect(t, http.StatusCreated)
}
