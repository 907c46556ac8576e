package console

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/corridorhq/corridor/test/harness"
)

// TestConsoleBrowserActions drives the tenant's actions in headless Chromium: freeze and
// unfreeze a card, suspend and reactivate an agent, set its daily cap, and find objects with
// the search box in the header (a card, then an id the tenant does not hold).
func TestConsoleBrowserActions(t *testing.T) {
	ten := env().NewTenant(t)
	cardID := cardholderCard(t, ten)
	agentID := ten.Root.Post("/v1/agents", map[string]any{"name": "Browser agent"}).Expect(t, 201).JSON(t)["id"].(string)

	ctx := harness.Browser(t)
	base := env().BaseURL
	run(t, ctx, "sign in",
		chromedp.Navigate(base+"/console/signin"),
		chromedp.WaitVisible("#signin-form", chromedp.ByQuery),
		chromedp.SetValue("#token", ten.SessionToken, chromedp.ByQuery),
		chromedp.Click("#signin", chromedp.ByQuery),
		chromedp.WaitVisible("#balances", chromedp.ByQuery),
	)

	var notice string
	run(t, ctx, "freeze the card",
		chromedp.Navigate(base+"/console/cards"),
		chromedp.WaitVisible("#freeze-"+cardID, chromedp.ByID),
		chromedp.Click("#freeze-"+cardID, chromedp.ByID),
		chromedp.WaitVisible("#unfreeze-"+cardID, chromedp.ByID),
		chromedp.Text("#notice", &notice, chromedp.ByID),
	)
	if got := cardStatus(t, ten, cardID); got != "inactive" || !strings.Contains(notice, "frozen") {
		t.Fatalf("after Freeze the API answers %s, the page says %q", got, notice)
	}
	run(t, ctx, "unfreeze the card",
		chromedp.Click("#unfreeze-"+cardID, chromedp.ByID),
		chromedp.WaitVisible("#freeze-"+cardID, chromedp.ByID),
	)
	if got := cardStatus(t, ten, cardID); got != "active" {
		t.Fatalf("after Unfreeze the API answers %s", got)
	}

	run(t, ctx, "suspend the agent",
		chromedp.Navigate(base+"/console/agents"),
		chromedp.WaitVisible("#suspend-"+agentID, chromedp.ByID),
		chromedp.Click("#suspend-"+agentID, chromedp.ByID),
		chromedp.WaitVisible("#reactivate-"+agentID, chromedp.ByID),
	)
	if a := agentOf(t, ten, agentID); a["status"] != "SUSPENDED" {
		t.Fatalf("after Suspend: %v", a)
	}
	run(t, ctx, "reactivate the agent",
		chromedp.Click("#reactivate-"+agentID, chromedp.ByID),
		chromedp.WaitVisible("#suspend-"+agentID, chromedp.ByID),
	)
	if a := agentOf(t, ten, agentID); a["status"] != "ACTIVE" {
		t.Fatalf("after Reactivate: %v", a)
	}
	run(t, ctx, "set a daily cap",
		chromedp.SetValue("#limits-daily", "75", chromedp.ByID),
		// The reactivation's notice goes, so the one waited for is the new page's.
		chromedp.Evaluate(`document.getElementById("notice").remove()`, nil),
		chromedp.Click("#limits-submit", chromedp.ByID),
		chromedp.WaitVisible("#notice", chromedp.ByID),
		chromedp.Text("#notice", &notice, chromedp.ByID),
	)
	if l := ten.Root.Get("/v1/agents/"+agentID+"/limits").Expect(t, 200).JSON(t); !strings.HasPrefix(toString(l["dailyUsd"]), "75") || !strings.Contains(notice, "Limits") {
		t.Fatalf("after setting the cap: %v, notice %q", l, notice)
	}

	var location, facts, missing string
	run(t, ctx, "search a card",
		chromedp.SetValue("#top-search", cardID, chromedp.ByID),
		chromedp.Submit("#top-search", chromedp.ByID),
		chromedp.WaitVisible("#facts", chromedp.ByID),
		chromedp.Location(&location),
		chromedp.Text("#facts", &facts, chromedp.ByID),
	)
	if location != base+"/console/cards/"+cardID || !strings.Contains(facts, cardID) {
		t.Fatalf("search landed on %s with %q", location, facts)
	}
	run(t, ctx, "search an unknown id",
		chromedp.SetValue("#top-search", "agt_0000000000000000000000000", chromedp.ByID),
		chromedp.Submit("#top-search", chromedp.ByID),
		chromedp.WaitVisible("#error", chromedp.ByID),
		chromedp.Text("#error", &missing, chromedp.ByID),
	)
	if !strings.Contains(missing, "Nothing with the id") {
		t.Fatalf("unknown id: %q", missing)
	}
}
