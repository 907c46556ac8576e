package console

import (
	"html/template"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/ports"
)

// overviewRecent is how many of the newest events the overview shows.
const overviewRecent = 10

// count is one object count of the overview, linked to its list.
type count struct {
	Label string
	Link  string
	Total int
	// Hidden: the role cannot read the list (the use case refused it).
	Hidden bool
}

type overviewData struct {
	Balances *finance.BalancesView
	// Volume is the chart of money in and out per day; empty when the role cannot read it.
	Volume  template.HTML
	In, Out int64 // the window's totals
	Events  []event.Event
	Counts  []count
}

// overview is the console's first page: the service balances, how many of each object the
// tenant holds, and the newest events. Each part calls its own use case as the member, and a
// part the role cannot read is left out rather than refusing the page.
func (k *Console) overview(c *fiber.Ctx) error {
	ctx, p := c.UserContext(), principal(c)
	one := ports.Page{Take: 1}
	var d overviewData
	if b, err := k.svc.Finance.Balances(ctx, p, nil); err == nil {
		d.Balances = &b
	}
	if v, err := k.svc.Finance.Volume(ctx, p); err == nil {
		d.Volume = volumeChart(v)
		for _, day := range v.Days {
			d.In, d.Out = d.In+day.In, d.Out+day.Out
		}
	}
	if evs, _, err := k.svc.Webhooks.ListEvents(ctx, p, webhooks.EventQuery{}, ports.Page{Take: overviewRecent}); err == nil {
		d.Events = evs
	}
	add := func(label, link string, total int, err error) {
		d.Counts = append(d.Counts, count{Label: label, Link: Prefix + link, Total: total, Hidden: err != nil})
	}
	_, n, err := k.svc.Wallets.ListWallets(ctx, p, one)
	add("Wallets", "/wallets", n, err)
	_, n, err = k.svc.SafePay.List(ctx, p, one)
	add("Safe payments", "/payments", n, err)
	_, n, err = k.svc.Checkout.List(ctx, p, ports.CheckoutQuery{}, one)
	add("Checkouts", "/checkouts", n, err)
	_, n, err = k.svc.Offramp.ListPayments(ctx, p, one)
	add("Off-ramp payments", "/offramp", n, err)
	_, n, err = k.svc.Cards.ListCards(ctx, p, one)
	add("Cards", "/cards", n, err)
	_, n, err = k.svc.Agents.ListAgents(ctx, p, one)
	add("Agents", "/agents", n, err)
	return k.render(c, fiber.StatusOK, "overview", "Overview", "", d)
}
