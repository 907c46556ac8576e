package portstest

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

// AgentRepo is the contract of ports.AgentRepo: agents list by creation and are scoped
// (AGENT_NOT_FOUND elsewhere), found by wallet, updated; spend in the windows adds the wallet's
// COMPLETED payments to unreleased card spend; card spend adjusts and releases once; the
// timeline is newest first and pages by cursor; and units that lock an agent to check and
// record spend never pass its limit.
func AgentRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"agents list by creation, scoped, found by wallet, updated", agentCRUD},
		{"spend adds completed payments to unreleased card spend", agentSpend},
		{"the timeline is newest first and pages by cursor", agentActivity},
		{"units that lock the agent to check its budget never pass it", agentBudgetConcurrent},
	})
}

func newAgent(tenantID, walletID string, at time.Time) agent.Agent {
	return agent.Agent{ID: core.NewID(core.PrefixAgent), TenantID: tenantID, Environment: core.EnvTest, Name: "bot",
		Status: agent.StatusActive, WalletID: walletID, CreatedAt: at, UpdatedAt: at}
}

func createAgent(t *testing.T, s ports.Store, a agent.Agent) {
	t.Helper()
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Agents().CreateAgent(ctx, a) })
}

func agentCRUD(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	w := newWallet(t, s, tn.ID, core.EnvTest)
	later, earlier := newAgent(tn.ID, w.ID, ledgerNow()), newAgent(tn.ID, "", ledgerNow().Add(-time.Hour))
	createAgent(t, s, later)
	createAgent(t, s, earlier)
	if err := unitErr(s, func(ctx context.Context, tx ports.Tx) error {
		return tx.Agents().CreateAgent(ctx, newAgent(tn.ID, w.ID, ledgerNow()))
	}); err == nil {
		t.Error("a second agent on one wallet was stored")
	}
	at, daily := ledgerNow(), int64(500)
	later.Status, later.SuspendedAt, later.UpdatedAt, later.Limits.Daily = agent.StatusSuspended, &at, at, &daily
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Agents().UpdateAgent(ctx, later) })
	bound := newCard(t, s, tn.ID, func(c *card.Card) { c.AgentID = earlier.ID })
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		if id, found, _ := tx.Agents().FindAgentCard(ctx, earlier); !found || id != bound.ID {
			t.Errorf("FindAgentCard = %s, %v; want %s", id, found, bound.ID)
		}
		list, total, err := tx.Agents().ListAgents(ctx, tn.ID, core.EnvTest, ports.Page{Take: 10})
		wantTotal(t, "ListAgents", total, 2)
		wantIDs(t, "ListAgents", ids(list, func(a agent.Agent) string { return a.ID }), []string{earlier.ID, later.ID})
		got, found, err2 := tx.Agents().FindAgentByWallet(ctx, tn.ID, core.EnvTest, w.ID)
		if !found || got.ID != later.ID || got.Status != agent.StatusSuspended || got.Limits.Daily == nil || *got.Limits.Daily != 500 {
			t.Errorf("FindAgentByWallet = %+v, %v", got, found)
		}
		if _, found, _ := tx.Agents().FindAgentByWallet(ctx, other.ID, core.EnvTest, w.ID); found {
			t.Error("another tenant finds the agent by wallet")
		}
		_, err3 := tx.Agents().LockAgent(ctx, other.ID, core.EnvTest, later.ID)
		wantCode(t, err3, agent.CodeNotFound)
		_, err3 = tx.Agents().FindAgent(ctx, tn.ID, core.EnvLive, later.ID)
		wantCode(t, err3, agent.CodeNotFound)
		if _, found, _ := tx.Agents().FindAgentCard(ctx, later); found {
			t.Error("FindAgentCard found a card for an agent without one")
		}
		return firstErr(err, err2)
	})
}

func cardSpend(a agent.Agent, id string, amount int64, at time.Time) agent.CardSpend {
	return agent.CardSpend{AuthorizationID: id, AgentID: a.ID, TenantID: a.TenantID, Environment: a.Environment,
		AmountBaseUnits: amount, Windows: agent.WindowsAt(at), ConsumedAt: at}
}

func spent(t *testing.T, s ports.Store, a agent.Agent, w agent.Windows) agent.Spent {
	t.Helper()
	var out agent.Spent
	unit(t, s, func(ctx context.Context, tx ports.Tx) (err error) {
		out, err = tx.Agents().SpentInWindows(ctx, a, w)
		return err
	})
	return out
}

func agentSpend(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	w := newWallet(t, s, tn.ID, core.EnvTest)
	a := newAgent(tn.ID, w.ID, ledgerNow())
	createAgent(t, s, a)
	now := ledgerNow()
	windows := agent.WindowsAt(now)
	done, open := newPayment(w, 0, safepay.StatusCompleted), newPayment(w, 1, safepay.StatusAwaitingSignature)
	done.AmountBaseUnits, open.AmountBaseUnits = 70, 1000
	card1, card2 := "cau_"+suffix(t), "cau_"+suffix(t)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreatePayment", tx.Payments().CreatePayment(ctx, done))
		noErr(t, "CreatePayment", tx.Payments().CreatePayment(ctx, open))
		noErr(t, "CreateCardSpend", tx.Agents().CreateCardSpend(ctx, cardSpend(a, card1, 30, now)))
		return tx.Agents().CreateCardSpend(ctx, cardSpend(a, card2, 200, now))
	})
	if got := spent(t, s, a, windows); got.Day != 300 || got.Week != 300 || got.Month != 300 {
		t.Errorf("SpentInWindows = %+v, want 300 in each (70 paid + 230 of cards)", got)
	}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		// Another tenant's calls find nothing and change nothing.
		noErr(t, "AdjustCardSpend of another tenant", tx.Agents().AdjustCardSpend(ctx, other.ID, card2, 1))
		noErr(t, "ReleaseCardSpend of another tenant", tx.Agents().ReleaseCardSpend(ctx, other.ID, card2, now))
		if _, found, _ := tx.Agents().LockCardSpend(ctx, other.ID, card2); found {
			t.Error("LockCardSpend found another tenant's record")
		}
		noErr(t, "AdjustCardSpend", tx.Agents().AdjustCardSpend(ctx, tn.ID, card2, 150))
		noErr(t, "ReleaseCardSpend", tx.Agents().ReleaseCardSpend(ctx, tn.ID, card1, now))
		noErr(t, "ReleaseCardSpend again", tx.Agents().ReleaseCardSpend(ctx, tn.ID, card1, now.Add(time.Hour)))
		rec, found, err := tx.Agents().LockCardSpend(ctx, tn.ID, card1)
		if !found || rec.ReleasedAt == nil || !rec.ReleasedAt.Equal(now) || rec.AmountBaseUnits != 30 {
			t.Errorf("LockCardSpend after two releases = %+v, %v; want the first release kept", rec, found)
		}
		if _, found, _ := tx.Agents().LockCardSpend(ctx, tn.ID, "cau_none"); found {
			t.Error("LockCardSpend found an unknown authorization")
		}
		return err
	})
	if got := spent(t, s, a, windows); got.Day != 220 {
		t.Errorf("SpentInWindows after adjust and release = %+v, want 220 (70 + 150)", got)
	}
	if got := spent(t, s, a, agent.WindowsAt(now.AddDate(0, 2, 0))); got.Day != 0 || got.Month != 0 {
		t.Errorf("SpentInWindows two months on = %+v, want nothing", got)
	}
}

func agentActivity(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	w := newWallet(t, s, tn.ID, core.EnvTest)
	a := newAgent(tn.ID, w.ID, ledgerNow())
	createAgent(t, s, a)
	p, v := newPolicy(t, tn.ID, "50")
	createPolicy(t, s, p, v)
	base := ledgerNow().Add(-time.Hour)
	pay := newPayment(w, 0, safepay.StatusCompleted)
	pay.CreatedAt = base
	dec := newDecision(p, v, pay.ID)
	dec.SubjectType, dec.SubjectID, dec.CreatedAt = "agent", a.ID, base.Add(time.Minute)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreatePayment", tx.Payments().CreatePayment(ctx, pay))
		return tx.Policies().CreateDecision(ctx, dec)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		items, err := tx.Agents().ListActivity(ctx, a, nil, 10)
		wantIDs(t, "ListActivity", ids(items, func(i agent.ActivityItem) string { return i.ID }), []string{dec.ID, pay.ID})
		if len(items) == 2 && (items[0].Kind != "policy_decision" || items[0].Status != "DENY" || items[1].Kind != "payment" || items[1].AmountBaseUnits != 100) {
			t.Errorf("ListActivity items = %+v", items)
		}
		page2, err2 := tx.Agents().ListActivity(ctx, a, &agent.Cursor{At: dec.CreatedAt, ID: dec.ID}, 10)
		wantIDs(t, "ListActivity after the decision", ids(page2, func(i agent.ActivityItem) string { return i.ID }), []string{pay.ID})
		one, err3 := tx.Agents().ListActivity(ctx, a, nil, 1)
		wantIDs(t, "ListActivity limit 1", ids(one, func(i agent.ActivityItem) string { return i.ID }), []string{dec.ID})
		return firstErr(err, err2, err3)
	})
}

func agentBudgetConcurrent(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	a := newAgent(tn.ID, "", ledgerNow())
	createAgent(t, s, a)
	now := ledgerNow()
	const limit, amount = 250, 100
	for _, err := range concurrently(s, 5, func(ctx context.Context, tx ports.Tx, _ int) error {
		locked, err := tx.Agents().LockAgent(ctx, a.TenantID, a.Environment, a.ID)
		if err != nil {
			return err
		}
		sp, err := tx.Agents().SpentInWindows(ctx, locked, agent.WindowsAt(now))
		if err != nil || sp.Day+amount > limit {
			return err
		}
		return tx.Agents().CreateCardSpend(ctx, cardSpend(locked, core.NewID(core.PrefixCardAuth), amount, now))
	}) {
		noErr(t, "budget unit", err)
	}
	if got := spent(t, s, a, agent.WindowsAt(now)); got.Day != 200 {
		t.Errorf("five units under a budget of %d spent %d, want 200", limit, got.Day)
	}
}
