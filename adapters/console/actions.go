package console

import (
	"context"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/agents"
	"github.com/corridorhq/corridor/core/auth"
)

// The actions a tenant takes on its cards and agents: freeze and unfreeze a card, suspend and
// reactivate an agent, set an agent's limits. Each is a form with the CSRF token and a
// one-time token (runOnce), and calls the same use case as the API's route: Cards.SetFrozen
// (POST /v1/cards/{id}/freeze, /unfreeze), Agents.SuspendAgent and ReactivateAgent (POST
// /v1/agents/{id}/suspend, /reactivate) and Agents.PutLimits (PUT /v1/agents/{id}/limits).
// The pages render the forms only for a role with the scope (cards:manage, agents:manage);
// the use case checks it again, as it does for the API.
func (k *Console) actionRoutes(r fiber.Router) {
	r.Post("/cards/:id/freeze", func(c *fiber.Ctx) error { return k.setCardFrozen(c, true) })
	r.Post("/cards/:id/unfreeze", func(c *fiber.Ctx) error { return k.setCardFrozen(c, false) })
	r.Post("/agents/:id/suspend", func(c *fiber.Ctx) error { return k.setAgentSuspended(c, true) })
	r.Post("/agents/:id/reactivate", func(c *fiber.Ctx) error { return k.setAgentSuspended(c, false) })
	r.Post("/agents/limits", k.putAgentLimits)
}

func (k *Console) setCardFrozen(c *fiber.Ctx, frozen bool) error {
	id := c.Params("id")
	done, again := "Card "+id+" unfrozen: it authorizes spend again.", "This form was already submitted: the card was unfrozen then."
	if frozen {
		done, again = "Card "+id+" frozen: its authorizations are declined until it is unfrozen.", "This form was already submitted: the card was frozen then."
	}
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		cd, err := k.svc.Cards.SetFrozen(ctx, principal(c), id, frozen)
		if err != nil {
			return outcome{}, err
		}
		return outcome{Location: backTo(c, "/cards", cd.ID),
			First: flash{Kind: "card", ID: id, Notice: done},
			Again: flash{Kind: "card", ID: id, Notice: again},
		}, nil
	})
}

func (k *Console) setAgentSuspended(c *fiber.Ctx, suspend bool) error {
	id := c.Params("id")
	act := k.svc.Agents.ReactivateAgent
	done, again := "Agent "+id+" reactivated: its keys act again.", "This form was already submitted: the agent was reactivated then."
	if suspend {
		act = k.svc.Agents.SuspendAgent
		done, again = "Agent "+id+" suspended: its keys are declined AGENT_SUSPENDED from their next request.", "This form was already submitted: the agent was suspended then."
	}
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		a, err := act(ctx, principal(c), id)
		if err != nil {
			return outcome{}, err
		}
		return outcome{Location: backTo(c, "/agents", a.ID),
			First: flash{Kind: "agent", ID: id, Notice: done},
			Again: flash{Kind: "agent", ID: id, Notice: again},
		}, nil
	})
}

// putAgentLimits sets the caps of the agent the form picks (agentId); it fills an empty field leaves that cap as it is and
// "none" clears it (the API's null), so the form never clears a cap by accident.
func (k *Console) putAgentLimits(c *fiber.Ctx) error {
	id := strings.TrimSpace(c.FormValue("agentId"))
	capOf := func(field string) agents.CapInput {
		v := strings.TrimSpace(c.FormValue(field))
		switch {
		case v == "":
			return agents.CapInput{}
		case strings.EqualFold(v, "none"):
			return agents.CapInput{Set: true}
		}
		return agents.CapInput{Set: true, Value: &v}
	}
	in := agents.LimitsInput{PerTransactionUSD: capOf("perTransactionUsd"), DailyUSD: capOf("dailyUsd"),
		WeeklyUSD: capOf("weeklyUsd"), MonthlyUSD: capOf("monthlyUsd")}
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		if _, err := k.svc.Agents.PutLimits(ctx, principal(c), id, in); err != nil {
			return outcome{}, err
		}
		return outcome{Location: Prefix + "/agents",
			First: flash{Kind: "agent", ID: id, Notice: "Limits of agent " + id + " updated."},
			Again: flash{Kind: "agent", ID: id, Notice: "This form was already submitted: the limits were updated then."},
		}, nil
	})
}

// backTo is where an action's outcome is shown: the object's own page when the form was
// posted from it (from=page), else its list. The id is the one the use case answered, never
// the request's text.
func backTo(c *fiber.Ctx, list, id string) string {
	if c.FormValue("from") == "page" {
		return Prefix + list + "/" + id
	}
	return Prefix + list
}

// can tells a page whether to render a form: the member's role has the scope.
func can(c *fiber.Ctx, s auth.Scope) bool {
	p := principal(c)
	return p.TenantID != "" && p.Has(s)
}
