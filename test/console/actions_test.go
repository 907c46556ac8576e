package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/adapters/console"
	"github.com/corridorhq/corridor/test/harness"
)

// cardholderCard issues a funding-account card to a new cardholder of ten (no wallet, no
// chain wait) and returns its id.
func cardholderCard(t *testing.T, ten *harness.Tenant) string {
	t.Helper()
	h := ten.Root.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).Expect(t, 201).JSON(t)
	addr := common.HexToAddress("0x00000000000000000000000000000000000000aa").Hex()
	c := ten.Root.Post("/v1/cards", map[string]any{"cardholderId": h["cardholderId"], "chain": "base", "cryptoAccountAddress": addr}).Expect(t, 201).JSON(t)
	return c["cardId"].(string)
}

func cardStatus(t *testing.T, ten *harness.Tenant, id string) string {
	t.Helper()
	return ten.Root.Get("/v1/cards/"+id).Expect(t, 200).JSON(t)["status"].(string)
}

func agentOf(t *testing.T, ten *harness.Tenant, id string) map[string]any {
	t.Helper()
	return ten.Root.Get("/v1/agents/"+id).Expect(t, 200).JSON(t)
}

// TestConsole_FreezeAndUnfreezeCard: the cards page freezes and unfreezes a card through the
// same use case as the API (the API then answers the new status), each form runs once (sent
// twice, it says it was already done), without the CSRF token nothing changes, and another
// tenant's card is 404.
func TestConsole_FreezeAndUnfreezeCard(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := cardholderCard(t, ten)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)

	page := v.Get("/console/cards")
	if page.Status != 200 || !strings.Contains(page.Body, `action="/console/cards/`+id+`/freeze"`) {
		t.Fatalf("cards page without the freeze form: %d\n%s", page.Status, page.Body)
	}
	if p := v.Post("/console/cards/"+id+"/freeze", nil, false); p.Status != http.StatusForbidden {
		t.Fatalf("freeze without the CSRF token: %d", p.Status)
	}
	if got := cardStatus(t, ten, id); got != "active" {
		t.Fatalf("a refused form froze the card: %s", got)
	}
	v.Get("/console/cards")
	form := v.Form("/console/cards/"+id+"/freeze", nil)
	if p := v.Post("/console/cards/"+id+"/freeze", form, false); p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/console/cards" {
		t.Fatalf("freeze: %d %q %s", p.Status, p.Header.Get("Location"), p.Body)
	}
	if got := cardStatus(t, ten, id); got != "inactive" {
		t.Fatalf("after freeze the API answers %s", got)
	}
	page = v.Get("/console/cards")
	if !strings.Contains(page.Body, "frozen: its authorizations are declined") || !strings.Contains(page.Body, `action="/console/cards/`+id+`/unfreeze"`) {
		t.Fatalf("the page after freezing:\n%s", page.Body)
	}
	// The first form again: done once already.
	if p := v.Post("/console/cards/"+id+"/freeze", form, false); p.Status != http.StatusSeeOther {
		t.Fatalf("freeze form again: %d", p.Status)
	}
	if page = v.Get("/console/cards"); !strings.Contains(page.Body, "already submitted: the card was frozen then") {
		t.Fatalf("the resubmission's page:\n%s", page.Body)
	}
	if p := v.Post("/console/cards/"+id+"/unfreeze", nil, true); p.Status != http.StatusSeeOther {
		t.Fatalf("unfreeze: %d %s", p.Status, p.Body)
	}
	if got := cardStatus(t, ten, id); got != "active" {
		t.Fatalf("after unfreeze the API answers %s", got)
	}
	events := ten.Root.Get("/v1/events?type=card.*").Expect(t, 200).JSON(t)["events"].([]any)
	var types []string
	for _, e := range events {
		types = append(types, e.(map[string]any)["type"].(string))
	}
	if !strings.Contains(strings.Join(types, ","), "card.frozen") || !strings.Contains(strings.Join(types, ","), "card.unfrozen") {
		t.Fatalf("events of the card: %v", types)
	}

	other := env().ConsoleVisitor(t)
	other.SignIn(env().NewTenant(t).SessionToken)
	other.Get("/console/keys") // a one-time token of that session
	if p := other.Post("/console/cards/"+id+"/freeze", nil, true); p.Status != http.StatusNotFound {
		t.Fatalf("another tenant freezes the card: %d", p.Status)
	}
	if p := other.Get("/console/cards/" + id); p.Status != http.StatusNotFound {
		t.Fatalf("another tenant's card page: %d", p.Status)
	}
	if got := cardStatus(t, ten, id); got != "active" {
		t.Fatalf("another tenant changed the card: %s", got)
	}
	if p := v.Get("/console/cards/" + id); p.Status != 200 || !strings.Contains(p.Body, "card.frozen") {
		t.Fatalf("the card's page with its history: %d\n%s", p.Status, p.Body)
	}
}

// TestConsole_SuspendReactivateAndLimitAgent: the agents page suspends and reactivates an
// agent and sets its caps through the agents use cases; a bad cap is refused with the API's
// reason and changes nothing; a MEMBER (no agents:manage) sees no forms and is refused.
func TestConsole_SuspendReactivateAndLimitAgent(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	id := ten.Root.Post("/v1/agents", map[string]any{"name": "Buyer"}).Expect(t, 201).JSON(t)["id"].(string)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)

	if p := v.Get("/console/agents"); !strings.Contains(p.Body, `action="/console/agents/`+id+`/suspend"`) || !strings.Contains(p.Body, `id="agent-limits"`) {
		t.Fatalf("agents page without its forms:\n%s", p.Body)
	}
	form := v.Form("/console/agents/"+id+"/suspend", nil)
	if p := v.Post("/console/agents/"+id+"/suspend", form, false); p.Status != http.StatusSeeOther {
		t.Fatalf("suspend: %d %s", p.Status, p.Body)
	}
	if a := agentOf(t, ten, id); a["status"] != "SUSPENDED" {
		t.Fatalf("after suspend: %v", a)
	}
	if p := v.Get("/console/agents"); !strings.Contains(p.Body, "suspended: its keys are declined") || !strings.Contains(p.Body, `action="/console/agents/`+id+`/reactivate"`) {
		t.Fatalf("the page after suspending:\n%s", p.Body)
	}
	if p := v.Post("/console/agents/"+id+"/reactivate", nil, true); p.Status != http.StatusSeeOther {
		t.Fatalf("reactivate: %d %s", p.Status, p.Body)
	}
	if a := agentOf(t, ten, id); a["status"] != "ACTIVE" {
		t.Fatalf("after reactivate: %v", a)
	}

	// Limits: a zero cap is refused with the use case's reason, nothing changes.
	v.Get("/console/agents")
	bad := v.Post("/console/agents/limits", url.Values{"agentId": {id}, "dailyUsd": {"0"}}, true)
	if bad.Status != http.StatusBadRequest || !strings.Contains(bad.Body, "VALIDATION_FAILED") {
		t.Fatalf("a zero cap: %d\n%s", bad.Status, bad.Body)
	}
	v.Get("/console/agents")
	ok := v.Post("/console/agents/limits", url.Values{"agentId": {id}, "dailyUsd": {"250.5"}, "perTransactionUsd": {"20"}}, true)
	if ok.Status != http.StatusSeeOther {
		t.Fatalf("set limits: %d\n%s", ok.Status, ok.Body)
	}
	limits := ten.Root.Get("/v1/agents/"+id+"/limits").Expect(t, 200).JSON(t)
	if !strings.HasPrefix(strings.TrimSpace(toString(limits["dailyUsd"])), "250.5") || !strings.HasPrefix(toString(limits["perTransactionUsd"]), "20") || limits["weeklyUsd"] != nil {
		t.Fatalf("limits after the form: %v", limits)
	}
	if p := v.Get("/console/agents"); !strings.Contains(p.Body, "250.500000") || !strings.Contains(p.Body, "Limits of agent") {
		t.Fatalf("the page after setting limits:\n%s", p.Body)
	}
	// "none" clears a cap; an empty field keeps one.
	v.Get("/console/agents")
	v.Post("/console/agents/limits", url.Values{"agentId": {id}, "dailyUsd": {"none"}}, true)
	limits = ten.Root.Get("/v1/agents/"+id+"/limits").Expect(t, 200).JSON(t)
	if limits["dailyUsd"] != nil || limits["perTransactionUsd"] == nil {
		t.Fatalf("limits after clearing the daily cap: %v", limits)
	}

	// A MEMBER: no forms, and a forged POST is refused.
	inv := ten.Session.Post("/v1/tenants/members", map[string]any{"email": "agents-member@example.com", "role": "MEMBER"}).Expect(t, 201).JSON(t)
	_, token := env().NewUserWithEmail(t, "agents-member@example.com")
	env().Client(t).WithSession(token).Post("/v1/tenants/members/accept", map[string]any{
		"token": inv["inviteToken"], "signerAddress": "0x0000000000000000000000000000000000000078",
	}).Expect(t, 200)
	m := env().ConsoleVisitor(t)
	m.SignIn(token)
	p := m.Get("/console/agents")
	if p.Status == 200 && strings.Contains(p.Body, `/suspend"`) {
		t.Fatalf("a MEMBER sees the suspend form:\n%s", p.Body)
	}
	if p := m.Post("/console/agents/"+id+"/suspend", nil, true); p.Status != http.StatusForbidden {
		t.Fatalf("a MEMBER suspends an agent: %d", p.Status)
	}
	if a := agentOf(t, ten, id); a["status"] != "ACTIVE" {
		t.Fatalf("a refused MEMBER changed the agent: %v", a)
	}
}

func toString(v any) string {
	s, _ := v.(string)
	return s
}

// TestConsole_SearchById: the search box sends each kind of id to its object's page; an
// unknown prefix, an unknown id and another tenant's id answer 404 saying it was not found.
func TestConsole_SearchById(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	card := cardholderCard(t, ten)
	agent := ten.Root.Post("/v1/agents", map[string]any{"name": "Searcher"}).Expect(t, 201).JSON(t)["id"].(string)
	body := map[string]any{"amount": 3, "currency": "USD", "cryptocurrency": "USDC", "description": "Searched order"}
	chk := ten.Root.Post("/v1/payments", body).Expect(t, 201).JSON(t)["id"].(string)
	evs := ten.Root.Get("/v1/events?type=agent.*").Expect(t, 200).JSON(t)["events"].([]any)
	if len(evs) == 0 {
		t.Fatal("no agent event")
	}
	evt := evs[0].(map[string]any)["id"].(string)
	theirs := other.Root.Post("/v1/agents", map[string]any{"name": "Theirs"}).Expect(t, 201).JSON(t)["id"].(string)

	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	if p := v.Get("/console/search"); p.Status != 200 || !strings.Contains(p.Body, `id="search"`) {
		t.Fatalf("search page: %d", p.Status)
	}
	for id, want := range map[string]string{card: "/console/cards/" + card, agent: "/console/agents/" + agent,
		chk: "/console/checkouts/" + chk, evt: "/console/events/" + evt} {
		p := v.Get("/console/search?q=" + url.QueryEscape(" "+id+" "))
		if p.Status != http.StatusSeeOther || p.Header.Get("Location") != want {
			t.Errorf("search %s: %d %q, want %s", id, p.Status, p.Header.Get("Location"), want)
			continue
		}
		if page := v.Get(want); page.Status != 200 || !strings.Contains(page.Body, id) {
			t.Errorf("%s: %d\n%s", want, page.Status, page.Body)
		}
	}
	if p := v.Get("/console/events/" + evt); !strings.Contains(p.Body, `id="payload"`) || !strings.Contains(p.Body, agent) {
		t.Errorf("the event's payload is not shown:\n%s", p.Body)
	}
	for q, want := range map[string]string{
		theirs:                           "Nothing with the id",
		"pay_0000000000000000000000000":  "Nothing with the id",
		"wal_0000000000000000000000000":  "Nothing with the id",
		"ofp_0000000000000000000000000":  "Nothing with the id",
		"clm_0000000000000000000000000":  "Nothing with the id",
		"card_0000000000000000000000000": "Nothing with the id",
		"zzz_123":                        "No object has an id like",
	} {
		p := v.Get("/console/search?q=" + url.QueryEscape(q))
		if p.Status != http.StatusNotFound || !strings.Contains(p.Body, want) {
			t.Errorf("search %s: %d\n%s", q, p.Status, p.Body)
		}
	}
}

// TestConsole_EmptyStates: a new tenant's list pages say what the list holds and how to
// create the first item, not a bare "No cards.".
func TestConsole_EmptyStates(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	for path, want := range map[string]string{
		"/console/cards":     "POST /v1/wallets/{id}/cards",
		"/console/agents":    "POST /v1/agents",
		"/console/wallets":   "POST /v1/wallets",
		"/console/payments":  "POST /v1/wallets/{id}/payments",
		"/console/checkouts": "POST /v1/payments",
		"/console/offramp":   "POST /v1/offramp/payments",
		"/console/webhooks":  "POST /v1/webhook-endpoints",
		"/console/events":    "No events yet",
		"/console/accounts":  "POST /v1/sandbox/balance-deposits",
		"/console/entries":   "No journal entries yet",
	} {
		p := v.Get(path)
		if p.Status != 200 || !strings.Contains(p.Body, `id="empty"`) || !strings.Contains(p.Body, want) {
			t.Errorf("%s: %d, want an empty state naming %q\n%s", path, p.Status, want, p.Body)
		}
	}
}

// TestConsole_Overview: the first page shows the service balances, the count of each object
// with a link to its list and the newest events linked to their payload; the new pages keep
// the strict policy (no inline script or style).
func TestConsole_Overview(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "12.5"}).Expect(t, 201)
	agent := ten.Root.Post("/v1/agents", map[string]any{"name": "Counted"}).Expect(t, 201).JSON(t)["id"].(string)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	p := v.Get("/console/")
	if p.Status != 200 || !strings.Contains(p.Body, `id="balances"`) || !strings.Contains(p.Body, "12.500000") ||
		!strings.Contains(p.Body, `<a href="/console/agents">Agents</a></td><td class="num">1</td>`) ||
		!strings.Contains(p.Body, agent) || !strings.Contains(p.Body, `href="/console/events/evt_`) {
		t.Fatalf("overview: %d\n%s", p.Status, p.Body)
	}
	for _, path := range []string{"/console/", "/console/search", "/console/agents/" + agent, "/console/search?q=zzz"} {
		p := v.Get(path)
		if p.Header.Get("Content-Security-Policy") != console.ContentSecurityPolicy || styleAttr.MatchString(p.Body) || inlineScript.MatchString(p.Body) {
			t.Errorf("%s: the policy's header is missing or the page has inline code", path)
		}
	}
}

// TestConsole_ActionsFromObjectPages: a card's and an agent's own pages (where search lands)
// carry the same actions, and the outcome is shown on that page.
func TestConsole_ActionsFromObjectPages(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	cardID := cardholderCard(t, ten)
	agentID := ten.Root.Post("/v1/agents", map[string]any{"name": "Paged"}).Expect(t, 201).JSON(t)["id"].(string)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)

	v.Get("/console/cards/" + cardID)
	p := v.Post("/console/cards/"+cardID+"/freeze", v.Form("/console/cards/"+cardID+"/freeze", url.Values{"from": {"page"}}), false)
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/console/cards/"+cardID {
		t.Fatalf("freeze from the card's page: %d %q", p.Status, p.Header.Get("Location"))
	}
	if page := v.Get("/console/cards/" + cardID); !strings.Contains(page.Body, "frozen: its authorizations are declined") ||
		!strings.Contains(page.Body, `id="unfreeze-`+cardID+`"`) || cardStatus(t, ten, cardID) != "inactive" {
		t.Fatalf("the card's page after freezing:\n%s", page.Body)
	}

	v.Get("/console/agents/" + agentID)
	p = v.Post("/console/agents/"+agentID+"/suspend", v.Form("/console/agents/"+agentID+"/suspend", url.Values{"from": {"page"}}), false)
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/console/agents/"+agentID {
		t.Fatalf("suspend from the agent's page: %d %q", p.Status, p.Header.Get("Location"))
	}
	if page := v.Get("/console/agents/" + agentID); !strings.Contains(page.Body, `id="reactivate-`+agentID+`"`) || agentOf(t, ten, agentID)["status"] != "SUSPENDED" {
		t.Fatalf("the agent's page after suspending:\n%s", page.Body)
	}
}
