package console

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
)

// searchTargets are the id prefixes the search box knows, with the object they name: an id
// is looked up through its app service as the signed-in member (another tenant's id is not
// found, as on the API) and the browser is sent to its page.
var searchTargets = []struct{ Prefix, Object string }{
	{"pay_", "Safe payment"}, {"wal_", "wallet"}, {"card_", "card"}, {"agt_", "agent"},
	{"chk_", "checkout"}, {"evt_", "event"}, {"ofp_", "off-ramp payment"}, {"clm_", "claim"},
}

type searchData struct {
	Query   string
	Objects []string
}

// search finds an object by its id and redirects to its page; an empty query shows the box,
// an unknown prefix or an id this tenant does not hold answers 404 saying so.
func (k *Console) search(c *fiber.Ctx) error {
	q := strings.TrimSpace(c.Query("q"))
	var objects []string
	for _, t := range searchTargets {
		objects = append(objects, t.Prefix+"… ("+t.Object+")")
	}
	data := searchData{Query: q, Objects: objects}
	if q == "" {
		return k.render(c, fiber.StatusOK, "search", "Search", "", data)
	}
	ctx, p := c.UserContext(), principal(c)
	var (
		location string
		err      error
	)
	switch {
	case strings.HasPrefix(q, "pay_"):
		_, err = k.svc.SafePay.Get(ctx, p, q)
		location = "/payments/" + q
	case strings.HasPrefix(q, "wal_"):
		_, err = k.svc.Wallets.GetWallet(ctx, p, q)
		location = "/wallets/" + q
	case strings.HasPrefix(q, "card_"):
		_, err = k.svc.Cards.GetCard(ctx, p, q)
		location = "/cards/" + q
	case strings.HasPrefix(q, "agt_"):
		_, err = k.svc.Agents.GetAgent(ctx, p, q)
		location = "/agents/" + q
	case strings.HasPrefix(q, "chk_"):
		_, err = k.svc.Checkout.Get(ctx, p, q)
		location = "/checkouts/" + q
	case strings.HasPrefix(q, "evt_"):
		_, err = k.svc.Webhooks.GetEvent(ctx, p, q)
		location = "/events/" + q
	case strings.HasPrefix(q, "ofp_"):
		_, err = k.svc.Offramp.GetPayment(ctx, p, q)
		location = "/offramp/" + q
	case strings.HasPrefix(q, "clm_"):
		view, gerr := k.svc.Claims.GetClaim(ctx, p, q)
		err, location = gerr, "/offramp/"+view.Payment.ID
	default:
		return k.notFound(c, data, "No object has an id like \u201c"+q+"\u201d: the search knows ids starting with "+strings.Join(prefixes(), ", ")+".")
	}
	var de *core.Error
	if errors.As(err, &de) && statusFor(de.Code) == fiber.StatusNotFound {
		return k.notFound(c, data, "Nothing with the id \u201c"+q+"\u201d in this tenant's "+string(p.Environment)+" environment. ("+string(de.Code)+")")
	}
	if err != nil {
		return k.fail(c, err)
	}
	return c.Redirect(Prefix+location, fiber.StatusSeeOther)
}

func (k *Console) notFound(c *fiber.Ctx, data searchData, msg string) error {
	c.Locals("consoleError", msg)
	return k.render(c, fiber.StatusNotFound, "search", "Search", "", data)
}

func prefixes() []string {
	out := make([]string, 0, len(searchTargets))
	for _, t := range searchTargets {
		out = append(out, t.Prefix)
	}
	return out
}

// fact is one line of an object's page.
type fact struct {
	Label string
	Value string
	Link  string
}

// objectData is the page of an object with no page of its own elsewhere (a card, an agent,
// a checkout, an event): its facts, and for an event its payload as the webhook sends it.
type objectData struct {
	Actions []objectAction
	Facts   []fact
	Payload string
	History []fact
	Back    fact
	// EventID and Deliveries: an event's page lists its deliveries, each redeliverable.
	EventID    string
	Deliveries []webhooks.DeliveryView
}

// objectAction is a one-button form on an object's page (freeze a card, suspend an agent):
// it posts from=page so the outcome is shown on the same page.
type objectAction struct {
	Path   string
	Label  string
	ID     string
	Danger bool
	// Field names an optional text input the form carries (a refund's address), with its hint.
	Field, Hint string
}

func (k *Console) objectRoutes(r fiber.Router) {
	r.Get("/cards/:id", k.cardPage)
	r.Get("/agents/:id", k.agentPage)
	r.Get("/checkouts/:id", k.checkoutPage)
	r.Get("/events/:id", k.eventPage)
}

func (k *Console) cardPage(c *fiber.Ctx) error {
	notice := ""
	if f, ok := k.takeFlash(c, "card"); ok {
		notice = f.Notice
	}
	cd, err := k.svc.Cards.GetCard(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return k.fail(c, err)
	}
	d := objectData{Back: fact{Label: "All cards", Link: Prefix + "/cards"}, Facts: []fact{
		{Label: "Card", Value: cd.ID}, {Label: "Last 4", Value: cd.Last4}, {Label: "Status", Value: string(cd.Status)},
		{Label: "Funding", Value: string(cd.Funding)}, {Label: "Issuer", Value: cd.Issuer + " " + cd.IssuerCardID},
		{Label: "Created", Value: cd.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC")},
	}}
	if cd.WalletID != "" {
		d.Facts = append(d.Facts, fact{Label: "Wallet", Value: cd.WalletID, Link: Prefix + "/wallets/" + cd.WalletID})
	}
	if cd.CardholderID != "" {
		d.Facts = append(d.Facts, fact{Label: "Cardholder", Value: cd.CardholderID})
	}
	if cd.AgentID != "" {
		d.Facts = append(d.Facts, fact{Label: "Agent", Value: cd.AgentID, Link: Prefix + "/agents/" + cd.AgentID})
	}
	if can(c, auth.ScopeCardsManage) {
		if cd.Status == card.StatusInactive {
			d.Actions = []objectAction{{Path: Prefix + "/cards/" + cd.ID + "/unfreeze", Label: "Unfreeze", ID: "unfreeze-" + cd.ID}}
		} else {
			d.Actions = []objectAction{{Path: Prefix + "/cards/" + cd.ID + "/freeze", Label: "Freeze", ID: "freeze-" + cd.ID, Danger: true}}
		}
	}
	d.History = k.historyFacts(c, "card.", cd.ID)
	return k.render(c, fiber.StatusOK, "object", "Card "+cd.ID, notice, d)
}

func (k *Console) agentPage(c *fiber.Ctx) error {
	notice := ""
	if f, ok := k.takeFlash(c, "agent"); ok {
		notice = f.Notice
	}
	a, err := k.svc.Agents.GetAgent(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return k.fail(c, err)
	}
	capOf := func(v *int64) string {
		if v == nil {
			return "no cap"
		}
		return usd(*v) + " USD"
	}
	d := objectData{Back: fact{Label: "All agents (set limits there)", Link: Prefix + "/agents"}, Facts: []fact{
		{Label: "Agent", Value: a.ID}, {Label: "Name", Value: a.Name}, {Label: "Status", Value: string(a.Status)},
		{Label: "Per transaction", Value: capOf(a.Limits.PerTransaction)}, {Label: "Daily", Value: capOf(a.Limits.Daily)},
		{Label: "Weekly", Value: capOf(a.Limits.Weekly)}, {Label: "Monthly", Value: capOf(a.Limits.Monthly)},
		{Label: "Created", Value: a.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC")},
	}}
	if a.WalletID != "" {
		d.Facts = append(d.Facts, fact{Label: "Wallet", Value: a.WalletID, Link: Prefix + "/wallets/" + a.WalletID})
	}
	if can(c, auth.ScopeAgentsManage) {
		if a.Status == agent.StatusSuspended {
			d.Actions = []objectAction{{Path: Prefix + "/agents/" + a.ID + "/reactivate", Label: "Reactivate", ID: "reactivate-" + a.ID}}
		} else {
			d.Actions = []objectAction{{Path: Prefix + "/agents/" + a.ID + "/suspend", Label: "Suspend", ID: "suspend-" + a.ID, Danger: true}}
		}
	}
	d.History = k.historyFacts(c, "agent.", a.ID)
	return k.render(c, fiber.StatusOK, "object", "Agent "+a.ID, notice, d)
}

func (k *Console) checkoutPage(c *fiber.Ctx) error {
	ck, err := k.svc.Checkout.Get(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return k.fail(c, err)
	}
	status := string(ck.Status)
	if ck.FailureReason != "" {
		status += " (" + ck.FailureReason + ")"
	}
	d := objectData{Back: fact{Label: "All checkouts", Link: Prefix + "/checkouts"}, Facts: []fact{
		{Label: "Checkout", Value: ck.ID}, {Label: "Description", Value: ck.Description},
		{Label: "Amount", Value: usd(ck.Amount) + " " + ck.Currency}, {Label: "Received", Value: usd(ck.Received) + " " + ck.Cryptocurrency},
		{Label: "Status", Value: status}, {Label: "Deposit address", Value: ck.DepositAddress},
		{Label: "Payment page", Value: "/pay/" + ck.ID, Link: "/pay/" + ck.ID},
		{Label: "Refunded", Value: usd(ck.Refunded) + " " + ck.Cryptocurrency},
		{Label: "Created", Value: ck.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC")},
	}}
	// What was credited and not yet refunded can go back to the payer (the use case holds the
	// ceiling; the button only appears where there is something to refund).
	if can(c, auth.ScopePaymentsExecute) && ck.Credited > ck.Refunded {
		d.Actions = []objectAction{{Path: Prefix + "/checkouts/" + ck.ID + "/refund", Label: "Refund " + usd(ck.Credited-ck.Refunded) + " USDC to the payer", ID: "refund-" + ck.ID, Danger: true,
			Field: "address", Hint: "to address (empty: the payer)"}}
	}
	notice := ""
	if f, ok := k.takeFlash(c, "checkout"); ok && f.ID == ck.ID {
		notice = f.Notice
	}
	return k.render(c, fiber.StatusOK, "object", "Checkout "+ck.ID, notice, d)
}

// eventPage shows an event, its payload (the data its webhook deliveries carry) and its
// deliveries to the tenant's endpoints, each with a redeliver button.
func (k *Console) eventPage(c *fiber.Ctx) error {
	ev, err := k.svc.Webhooks.GetEvent(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return k.fail(c, err)
	}
	payload, err := json.MarshalIndent(ev.Data, "", "  ")
	if err != nil {
		return k.fail(c, err)
	}
	d := objectData{Back: fact{Label: "All events", Link: Prefix + "/events"}, Payload: string(payload), Facts: []fact{
		{Label: "Event", Value: ev.ID}, {Label: "Type", Value: ev.Type}, {Label: "Resource", Value: ev.ResourceID},
		{Label: "Created", Value: ev.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC")},
	}, EventID: ev.ID}
	// A role that cannot manage webhooks sees the event without its deliveries.
	if ds, err := k.svc.Webhooks.EventDeliveries(c.UserContext(), principal(c), ev.ID); err == nil {
		d.Deliveries = ds
	}
	notice := ""
	if f, ok := k.takeFlash(c, "event"); ok && f.ID == ev.ID {
		notice = f.Notice
	}
	return k.render(c, fiber.StatusOK, "object", "Event "+ev.ID, notice, d)
}

// historyFacts is an object's history from the event log as lines of its page.
func (k *Console) historyFacts(c *fiber.Ctx, family, id string) []fact {
	var out []fact
	for i, ev := range k.history(c, family, id) {
		out = append(out, fact{Label: strconv.Itoa(i+1) + ". " + ev.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC"), Value: ev.Type, Link: Prefix + "/events/" + ev.ID})
	}
	return out
}
