package console

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/claims"
	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// moneyPages list and show the objects that hold or move money: wallets, Safe payments,
// checkouts, off-ramp payments, cards and agents.
type moneyPages struct{ *Console }

func (k moneyPages) moneyRoutes(r fiber.Router) {
	r.Get("/wallets", k.wallets)
	r.Get("/wallets/:id", k.wallet)
	r.Get("/payments", k.payments)
	r.Get("/payments/:id", k.payment)
	r.Get("/checkouts", k.checkouts)
	r.Get("/offramp", k.offrampPayments)
	r.Get("/offramp/:id", k.offrampPayment)
	r.Get("/cards", k.cards)
	r.Get("/agents", k.agents)
}

type walletsData struct {
	Wallets []wallet.Wallet
	Page    *pager
}

func (k moneyPages) wallets(c *fiber.Ctx) error {
	page, pg := pageOf(c)
	ws, total, err := k.svc.Wallets.ListWallets(c.UserContext(), principal(c), page)
	if err != nil {
		return k.fail(c, err)
	}
	pg.Total = total
	return k.render(c, fiber.StatusOK, "wallets", "Wallets", "", walletsData{Wallets: ws, Page: pg})
}

func (k moneyPages) wallet(c *fiber.Ctx) error {
	w, err := k.svc.Wallets.GetWallet(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return k.fail(c, err)
	}
	return k.render(c, fiber.StatusOK, "wallet", "Wallet "+w.Wallet.Name, "", w)
}

type paymentsData struct {
	Payments []safepay.Payment
	Page     *pager
}

// payments lists Safe payments; ?id= finds one by id.
func (k moneyPages) payments(c *fiber.Ctx) error {
	if id := strings.TrimSpace(c.Query("id")); id != "" {
		return c.Redirect(Prefix+"/payments/"+id, fiber.StatusSeeOther)
	}
	page, pg := pageOf(c)
	ps, total, err := k.svc.SafePay.List(c.UserContext(), principal(c), page)
	if err != nil {
		return k.fail(c, err)
	}
	pg.Total = total
	return k.render(c, fiber.StatusOK, "payments", "Safe payments", "", paymentsData{Payments: ps, Page: pg})
}

type checkoutsData struct {
	Checkouts []checkout.Checkout
	Statuses  []string
	Status    string
	Page      *pager
}

// checkouts lists the hosted checkouts, newest first; ?status= filters (as GET /v1/checkouts).
func (k moneyPages) checkouts(c *fiber.Ctx) error {
	page, pg := pageOf(c)
	filter, err := checkoutStatus(c)
	if err != nil {
		return k.fail(c, err)
	}
	status := string(filter)
	statuses := make([]string, len(checkoutStatuses))
	for i, s := range checkoutStatuses {
		statuses[i] = string(s)
	}
	cs, total, err := k.svc.Checkout.List(c.UserContext(), principal(c), ports.CheckoutQuery{Status: filter}, page)
	if err != nil {
		return k.fail(c, err)
	}
	pg.Total = total
	return k.render(c, fiber.StatusOK, "checkouts", "Checkouts", "", checkoutsData{Checkouts: cs, Statuses: statuses, Status: status, Page: pg})
}

type paymentData struct {
	Payment safepay.Payment
	History []event.Event
}

func (k moneyPages) payment(c *fiber.Ctx) error {
	p, err := k.svc.SafePay.Get(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return k.fail(c, err)
	}
	return k.render(c, fiber.StatusOK, "payment", "Safe payment "+p.ID, "", paymentData{Payment: p, History: k.history(c, "safe_payment.", p.ID)})
}

// history is an object's state changes from the event log, oldest first: the events of its
// family naming it (the newest ports.MaxTake of them). A reader without the events scope sees
// none.
func (k *Console) history(c *fiber.Ctx, family, id string) []event.Event {
	evs, _, err := k.svc.Webhooks.ListEvents(c.UserContext(), principal(c),
		webhooks.EventQuery{Type: family + "*", ResourceID: id}, ports.Page{Take: ports.MaxTake})
	if err != nil {
		return nil
	}
	slices.Reverse(evs)
	return evs
}

type offrampsData struct {
	Payments []offramp.Payment
	Page     *pager
}

func (k moneyPages) offrampPayments(c *fiber.Ctx) error {
	if id := strings.TrimSpace(c.Query("id")); id != "" {
		return c.Redirect(Prefix+"/offramp/"+id, fiber.StatusSeeOther)
	}
	page, pg := pageOf(c)
	ps, total, err := k.svc.Offramp.ListPayments(c.UserContext(), principal(c), page)
	if err != nil {
		return k.fail(c, err)
	}
	pg.Total = total
	return k.render(c, fiber.StatusOK, "offramps", "Off-ramp payments", "", offrampsData{Payments: ps, Page: pg})
}

type offrampData struct {
	Payment      offramp.Payment
	Claim        *claims.ClaimView
	History      []event.Event
	ClaimHistory []event.Event
}

func (k moneyPages) offrampPayment(c *fiber.Ctx) error {
	p, err := k.svc.Offramp.GetPayment(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return k.fail(c, err)
	}
	d := offrampData{Payment: p, History: k.history(c, "offramp_payment.", p.ID)}
	if p.ClaimID != "" {
		if cv, err := k.svc.Claims.GetClaim(c.UserContext(), principal(c), p.ClaimID); err == nil {
			d.Claim = &cv
			d.ClaimHistory = k.history(c, "claim.", p.ClaimID)
		}
	}
	return k.render(c, fiber.StatusOK, "offramp", "Off-ramp payment "+p.ID, "", d)
}

type cardsData struct {
	Cards []card.Card
	Page  *pager
	// Manage renders the freeze and unfreeze forms (the role holds cards:manage).
	Manage bool
}

func (k moneyPages) cards(c *fiber.Ctx) error {
	notice := ""
	if f, ok := k.takeFlash(c, "card"); ok {
		notice = f.Notice
	}
	page, pg := pageOf(c)
	cs, total, err := k.svc.Cards.ListCards(c.UserContext(), principal(c), page)
	if err != nil {
		return k.fail(c, err)
	}
	pg.Total = total
	return k.render(c, fiber.StatusOK, "cards", "Cards", notice, cardsData{Cards: cs, Page: pg, Manage: can(c, auth.ScopeCardsManage)})
}

type agentsData struct {
	Agents []agent.Agent
	Page   *pager
	// Manage renders the suspend, reactivate and limits forms (the role holds agents:manage).
	Manage bool
}

func (k moneyPages) agents(c *fiber.Ctx) error {
	notice := ""
	if f, ok := k.takeFlash(c, "agent"); ok {
		notice = f.Notice
	}
	page, pg := pageOf(c)
	as, total, err := k.svc.Agents.ListAgents(c.UserContext(), principal(c), page)
	if err != nil {
		return k.fail(c, err)
	}
	pg.Total = total
	return k.render(c, fiber.StatusOK, "agents", "Agents", notice, agentsData{Agents: as, Page: pg, Manage: can(c, auth.ScopeAgentsManage)})
}
