package console

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/test/harness"
)

func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// reconciled waits until the indexer has posted the tenant's on-chain balances: every wallet
// listed and zero drift in total, as GET /v1/ledger/reconciliation reports.
func reconciled(t *testing.T, ten *harness.Tenant, wallets int) {
	t.Helper()
	harness.Poll(t, "reconciliation without drift", func() map[string]any {
		if err := env().Service.Mirror.RequestChainIndex(context.Background(), core.EnvTest); err != nil {
			t.Fatal(err)
		}
		return ten.Root.Get("/v1/ledger/reconciliation").Expect(t, 200).JSON(t)
	}, func(m map[string]any) bool {
		ws, _ := m["wallets"].([]any)
		totals, _ := m["totals"].(map[string]any)
		return len(ws) == wallets && totals["driftBaseUnits"] == "0" && totals["ledgerBalanceBaseUnits"] != "0"
	})
}

// TestConsoleBrowser walks the console in headless Chromium as a tenant owner: sign in, create
// a key and see its secret once, add a webhook endpoint and redeliver, find a payment, download
// the journal CSV and compare it with the API's, and see zero drift on the reconciliation.
func TestConsoleBrowser(t *testing.T) {
	ten := env().NewTenant(t)
	for _, amount := range []string{"120", "55.25", "74.75"} {
		ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": amount}).Expect(t, 201)
	}
	ten.Root.Post("/v1/agents", map[string]any{"name": "Procurement agent"}).Expect(t, 201)
	// An off-ramp payment to a phone without an account: it waits as a funded claim.
	phone := harness.Phone("628")
	offramp := ten.Root.Post("/v1/offramp/payments", map[string]any{"phone": phone, "amountUsd": "10"}).Expect(t, 201).JSON(t)
	claimID, _ := offramp["claimId"].(string)
	if claimID == "" {
		t.Fatalf("no claim: %v", offramp)
	}
	harness.WaitClaim(t, ten.Root, claimID, "funded", func(c map[string]any) bool { return c["funded"] == true })
	owner := harness.NewOwner(t)
	w := ten.Root.Post("/v1/wallets", map[string]any{"name": "Treasury", "threshold": 1,
		"owners": []map[string]any{{"address": owner.Address.Hex(), "role": "FINANCE_OWNER"}}}).Expect(t, 201).JSON(t)
	walletID := w["id"].(string)
	ten.Root.WaitWalletDeployed(t, walletID)
	ten.Root.Fund(t, walletID, "40")
	reconciled(t, ten, 1)
	receiver := harness.NewWebhookReceiver(t, 0)

	ctx := harness.Browser(t)
	base := env().BaseURL
	// Anything the page's policy blocks, and any script error, is reported by the browser.
	var mu sync.Mutex
	var violations []string
	chromedp.ListenTarget(ctx, func(ev any) {
		var text string
		switch e := ev.(type) {
		case *cdplog.EventEntryAdded:
			text = e.Entry.Text
		case *runtime.EventExceptionThrown:
			text = e.ExceptionDetails.Text
		}
		if strings.Contains(text, "Content Security Policy") || strings.Contains(text, "Uncaught") {
			mu.Lock()
			violations = append(violations, text)
			mu.Unlock()
		}
	})
	run(t, ctx, "enable the log", cdplog.Enable())
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if len(violations) > 0 {
			t.Errorf("the browser reported policy violations or script errors: %q", violations)
		}
	})
	run(t, ctx, "viewer time zone", emulation.SetTimezoneOverride("Asia/Tokyo"))

	// Sign in.
	var location string
	run(t, ctx, "sign in",
		chromedp.Navigate(base+"/console/keys"),
		chromedp.WaitVisible("#signin-form", chromedp.ByQuery),
		chromedp.Location(&location),
		screenshot(t, "signin"),
		chromedp.SetValue("#token", ten.SessionToken, chromedp.ByQuery),
		chromedp.Click("#signin", chromedp.ByQuery),
		chromedp.WaitVisible("#balances", chromedp.ByQuery),
	)
	if location != base+"/console/signin" {
		t.Fatalf("an anonymous visit landed on %s", location)
	}
	var balances string
	run(t, ctx, "balances", chromedp.Text("#balances", &balances, chromedp.ByQuery), screenshot(t, "balances"))
	if !strings.Contains(balances, "240.000000") { // 250 deposited, 10 sent to the claim
		t.Fatalf("balances page: %q", balances)
	}
	// Times are rewritten into the viewer's zone by console.js (UTC without it).
	var timeClass string
	var ok bool
	run(t, ctx, "local times", chromedp.Navigate(base+"/console/entries"), chromedp.WaitVisible("#entries", chromedp.ByQuery),
		chromedp.AttributeValue("#entries time", "class", &timeClass, &ok, chromedp.ByQuery))
	var firstTime string
	run(t, ctx, "local time text", chromedp.Text("#entries time", &firstTime, chromedp.ByQuery), screenshot(t, "entries"))
	if timeClass != "local" || strings.Contains(firstTime, "UTC") || !strings.Contains(firstTime, "GMT+9") {
		t.Fatalf("time not in the viewer's zone: class %q text %q", timeClass, firstTime)
	}

	// Create a key: its secret is shown once, works, and is gone after a reload.
	var secret string
	run(t, ctx, "create key",
		chromedp.Navigate(base+"/console/keys"),
		chromedp.WaitVisible("#create-key", chromedp.ByQuery),
		chromedp.SetValue("#key-name", "console key", chromedp.ByQuery),
		chromedp.Click(`input[name="scopes"][value="wallets:read"]`, chromedp.ByQuery),
		chromedp.Click(`input[name="scopes"][value="payments:read"]`, chromedp.ByQuery),
		chromedp.Click("#create-key-submit", chromedp.ByQuery),
		chromedp.WaitVisible("#key-secret", chromedp.ByQuery),
		chromedp.Text("#key-secret", &secret, chromedp.ByQuery),
		screenshot(t, "keys"),
	)
	if !regexp.MustCompile(`^csk_test_[A-Za-z0-9]+_[A-Za-z0-9]+$`).MatchString(strings.TrimSpace(secret)) {
		t.Fatalf("key secret %q", secret)
	}
	created := env().Client(t).WithKey(strings.TrimSpace(secret))
	created.Get("/v1/wallets").Expect(t, 200)
	created.Post("/v1/api-keys", map[string]any{"name": "nope"}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	var html string
	run(t, ctx, "reload keys", chromedp.Reload(), chromedp.WaitVisible("#keys", chromedp.ByQuery), chromedp.OuterHTML("html", &html, chromedp.ByQuery))
	if strings.Contains(html, strings.TrimSpace(secret)) || strings.Contains(html, `id="key-secret"`) || !strings.Contains(html, "console key") {
		t.Fatal("the key's secret is shown again after a reload, or the key is not listed")
	}
	// console.js sends a posting form once: a second click on its button is not sent (a page
	// listener stops the navigation and counts the submissions that were not stopped).
	var sent int
	run(t, ctx, "a form is sent once",
		chromedp.Navigate(base+"/console/keys"),
		chromedp.WaitVisible("#create-key", chromedp.ByQuery),
		chromedp.SetValue("#key-name", "never sent", chromedp.ByQuery),
		chromedp.Evaluate(`window.sentForms = 0; document.getElementById("create-key").addEventListener("submit", function (e) {
			if (!e.defaultPrevented) { window.sentForms++; } e.preventDefault(); });`, nil),
		chromedp.Click("#create-key-submit", chromedp.ByQuery),
		chromedp.Click("#create-key-submit", chromedp.ByQuery),
		chromedp.Evaluate(`window.sentForms`, &sent),
	)
	if sent != 1 {
		t.Fatalf("two clicks sent the form %d times, want once", sent)
	}
	// Two clicks on the create button create one key, and its secret is shown.
	keysBefore := keyTotal(t, ten)
	var doubled string
	run(t, ctx, "double-click create key",
		chromedp.Navigate(base+"/console/keys"),
		chromedp.WaitVisible("#create-key", chromedp.ByQuery),
		chromedp.SetValue("#key-name", "double clicked", chromedp.ByQuery),
		// Both clicks in one task, as a fast double click lands before the navigation starts
		// (two separate protocol clicks race the navigation and may find the button gone).
		chromedp.Evaluate(`(function () { var b = document.getElementById("create-key-submit"); b.click(); b.click(); })()`, nil),
		chromedp.WaitVisible("#key-secret", chromedp.ByQuery),
		chromedp.Text("#key-secret", &doubled, chromedp.ByQuery),
	)
	if after := keyTotal(t, ten); after != keysBefore+1 || !strings.HasPrefix(strings.TrimSpace(doubled), "csk_test_") {
		t.Fatalf("a double click: keys %v → %v, secret %q; want one key and its secret", keysBefore, after, doubled)
	}

	// Add a webhook endpoint for every event.
	var endpointSecret, endpoints string
	run(t, ctx, "add endpoint",
		chromedp.Navigate(base+"/console/webhooks"),
		chromedp.WaitVisible("#add-endpoint", chromedp.ByQuery),
		chromedp.SetValue("#endpoint-url", receiver.URL()+"/corridor", chromedp.ByQuery),
		chromedp.Click(`input[name="events"][value="*"]`, chromedp.ByQuery),
		chromedp.Click("#add-endpoint-submit", chromedp.ByQuery),
		chromedp.WaitVisible("#endpoint-secret", chromedp.ByQuery),
		chromedp.Text("#endpoint-secret", &endpointSecret, chromedp.ByQuery),
		chromedp.Text("#endpoints", &endpoints, chromedp.ByQuery),
		screenshot(t, "webhooks"),
	)
	if !strings.Contains(endpoints, receiver.URL()+"/corridor") || strings.TrimSpace(endpointSecret) == "" {
		t.Fatalf("endpoint not listed (%q) or no secret", endpoints)
	}
	eps := ten.Root.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)["endpoints"].([]any)
	endpointID := eps[0].(map[string]any)["id"].(string)

	// A payment: proposed through the API, found in the console by its id.
	pay := ten.Root.Post("/v1/payments", map[string]any{"sourceWalletId": walletID, "amount": map[string]any{"value": "1.5"},
		"destination": map[string]any{"type": "address", "address": harness.NewOwner(t).Address.Hex(), "chainId": 84532}}).Expect(t, 201).JSON(t)
	payID := pay["id"].(string)
	var payment string
	run(t, ctx, "find payment",
		chromedp.Navigate(base+"/console/payments"),
		chromedp.WaitVisible("#find-payment", chromedp.ByQuery),
		screenshot(t, "payments"),
		chromedp.SetValue("#payment-id", payID, chromedp.ByQuery),
		chromedp.Submit("#payment-id", chromedp.ByQuery),
		chromedp.WaitVisible("#payment", chromedp.ByQuery),
		chromedp.Text("#payment", &payment, chromedp.ByQuery),
		screenshot(t, "payment"),
	)
	if !strings.Contains(payment, payID) || !strings.Contains(payment, "1.500000") || !strings.Contains(payment, "AWAITING_SIGNATURE") {
		t.Fatalf("payment page: %q", payment)
	}

	// The off-ramp payment, its claim and their state histories.
	var offrampPage string
	run(t, ctx, "off-ramp payment",
		chromedp.Navigate(base+"/console/offramp"),
		chromedp.WaitVisible("#offramp-payments a", chromedp.ByQuery),
		screenshot(t, "offramp"),
		chromedp.Click("#offramp-payments a", chromedp.ByQuery),
		chromedp.WaitVisible("#claim", chromedp.ByQuery),
		chromedp.Text("main", &offrampPage, chromedp.ByQuery),
		screenshot(t, "offramp-payment"),
	)
	for _, want := range []string{offramp["paymentId"].(string), claimID, "PENDING_CLAIM", "10.000000", "offramp_payment.pending_claim"} {
		if !strings.Contains(offrampPage, want) {
			t.Fatalf("off-ramp page lacks %q:\n%s", want, offrampPage)
		}
	}
	if strings.Contains(offrampPage, strings.TrimPrefix(phone, "+1")) {
		t.Fatal("the off-ramp page shows the full phone number")
	}

	// The proposal's event is delivered; redeliver it from the endpoint's page.
	receiver.Wait(t, 1)
	var deliveries string
	run(t, ctx, "deliveries", chromedp.Navigate(base+"/console/webhooks/"+endpointID), chromedp.WaitVisible("#deliveries", chromedp.ByQuery))
	deadline := time.Now().Add(30 * time.Second)
	for {
		run(t, ctx, "deliveries text", chromedp.Text("#deliveries", &deliveries, chromedp.ByQuery))
		if strings.Contains(deliveries, "SUCCEEDED") || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
		run(t, ctx, "reload deliveries", chromedp.Reload(), chromedp.WaitVisible("#deliveries", chromedp.ByQuery))
	}
	before := len(receiver.Wait(t, 1))
	var redelivered string
	run(t, ctx, "redeliver", chromedp.Click(`#deliveries button[type="submit"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#notice", chromedp.ByQuery), chromedp.Text("#notice", &redelivered, chromedp.ByQuery))
	if !strings.Contains(redelivered, "Redelivery queued") {
		t.Fatalf("after redeliver: notice %q", redelivered)
	}
	receiver.Wait(t, before+1)
	run(t, ctx, "deliveries after", chromedp.Navigate(base+"/console/webhooks/"+endpointID), chromedp.WaitVisible("#deliveries", chromedp.ByQuery),
		chromedp.Text("#deliveries", &deliveries, chromedp.ByQuery), screenshot(t, "webhook"))
	if !strings.Contains(deliveries, "(redelivery)") {
		t.Fatalf("no redelivery listed: %q", deliveries)
	}

	// Download the journal CSV and compare it with the API's.
	dir, err := os.MkdirTemp("", "corridor-console-csv-")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	done := make(chan string, 1)
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*browser.EventDownloadProgress); ok && e.State == browser.DownloadProgressStateCompleted {
			select {
			case done <- e.GUID:
			default:
			}
		}
	})
	apiCSV := ten.Root.Get("/v1/ledger/entries?format=csv").Expect(t, 200).Body
	run(t, ctx, "download CSV",
		chromedp.Navigate(base+"/console/entries"),
		chromedp.WaitVisible("#download-csv", chromedp.ByQuery),
		browser.SetDownloadBehavior(browser.SetDownloadBehaviorBehaviorAllowAndName).WithDownloadPath(dir).WithEventsEnabled(true),
		chromedp.Click("#download-csv", chromedp.ByQuery),
	)
	var guid string
	var got []byte
	select {
	case guid = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the CSV download did not complete")
	}
	got, err = os.ReadFile(filepath.Join(dir, guid))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(apiCSV) || !strings.HasPrefix(string(got), "sequence,transferId,") || strings.Count(string(got), "\r\n") < 3 {
		t.Fatalf("console CSV differs from the API's:\n%s\n---\n%s", got, apiCSV)
	}

	// Reconciliation: zero drift.
	var drift, summary string
	run(t, ctx, "reconciliation",
		chromedp.Navigate(base+"/console/reconciliation"),
		chromedp.WaitVisible("#reconciliation", chromedp.ByQuery),
		chromedp.Text("#drift-total", &drift, chromedp.ByQuery),
		chromedp.Text("#drift-summary", &summary, chromedp.ByQuery),
		screenshot(t, "reconciliation"),
	)
	if strings.TrimSpace(drift) != "0.000000" || !strings.Contains(summary, "No drift") {
		t.Fatalf("reconciliation: drift %q, %q", drift, summary)
	}

	// The service balance account's chart, drawn server-side.
	var points string
	run(t, ctx, "account chart",
		chromedp.Navigate(base+"/console/balances"),
		chromedp.WaitVisible("#balances a", chromedp.ByQuery),
		chromedp.Click("#balances a", chromedp.ByQuery),
		chromedp.WaitVisible("#balance-chart svg", chromedp.ByQuery),
		chromedp.AttributeValue("#balance-chart polyline", "points", &points, &ok, chromedp.ByQuery),
		screenshot(t, "account"),
	)
	if !ok || strings.Count(points, ",") < 2 {
		t.Fatalf("chart points %q", points)
	}

	// The other pages render, for the screenshots of docs/console.md.
	for _, p := range []struct{ path, sel, name string }{
		{"/console/wallets", "#wallets", "wallets"}, {"/console/wallets/" + walletID, "#wallet-balances", "wallet"},
		{"/console/events", "#events", "events"},
		{"/console/cards", "#cards", "cards"}, {"/console/agents", "#agents", "agents"},
		{"/console/accounts", "#accounts", "accounts"}, {"/console/trial-balance", ".trial", "trial-balance"},
	} {
		run(t, ctx, p.path, chromedp.Navigate(base+p.path), chromedp.WaitVisible(p.sel, chromedp.ByQuery), screenshot(t, p.name))
	}
	var walletBalances string
	run(t, ctx, "wallet balances", chromedp.Navigate(base+"/console/wallets/"+walletID), chromedp.WaitVisible("#wallet-balances", chromedp.ByQuery),
		chromedp.Text("#wallet-balances", &walletBalances, chromedp.ByQuery))
	if !strings.Contains(walletBalances, "40.000000") {
		t.Fatalf("wallet balances: %q", walletBalances)
	}
}
