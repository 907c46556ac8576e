package console

import (
	"encoding/csv"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/corridorhq/corridor/test/harness"
)

// TestConsoleBrowserCheckoutCreateAndRefund: a checkout created from the console's form exists
// in the API with its amount and description; once paid (sandbox) and credited, its page's
// Refund button refunds what it received, as the API then reports.
func TestConsoleBrowserCheckoutCreateAndRefund(t *testing.T) {
	ten := env().NewTenant(t)
	ctx := harness.Browser(t)
	base := env().BaseURL
	var location, notice string
	run(t, ctx, "create a checkout",
		chromedp.Navigate(base+"/console/signin"),
		chromedp.WaitVisible("#signin-form", chromedp.ByQuery),
		chromedp.SetValue("#token", ten.SessionToken, chromedp.ByQuery),
		chromedp.Click("#signin", chromedp.ByQuery),
		chromedp.WaitVisible("nav", chromedp.ByQuery),
		chromedp.Navigate(base+"/console/checkouts"),
		chromedp.WaitVisible("#create-checkout", chromedp.ByID),
		chromedp.SetValue("#checkout-amount", "4.20", chromedp.ByID),
		chromedp.SetValue("#checkout-description", "Console order", chromedp.ByID),
		chromedp.Click("#create-checkout-submit", chromedp.ByID),
		chromedp.WaitVisible("#notice", chromedp.ByID),
		chromedp.Text("#notice", &notice, chromedp.ByID),
		chromedp.Location(&location),
	)
	id := location[strings.LastIndex(location, "/")+1:]
	got := ten.Root.Get("/v1/payments/"+id).Expect(t, 200).JSON(t)
	if got["amount"] != 4.2 || got["description"] != "Console order" || !strings.Contains(notice, "/pay/"+id) {
		t.Fatalf("created %s: %v, notice %q", id, got, notice)
	}
	ten.Root.Post("/v1/sandbox/payments/"+id+"/pay", nil).Expect(t, 201)
	for range 3 {
		if _, err := env().Chain.MineSimulated(); err != nil {
			t.Fatal(err)
		}
	}
	harness.Poll(t, "the checkout credited", func() map[string]any { return ten.Root.Get("/v1/payments/"+id).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["refundable"] == "4.200000" })
	run(t, ctx, "refund",
		chromedp.Navigate(base+"/console/checkouts/"+id),
		chromedp.WaitVisible("#refund-"+id, chromedp.ByID),
		// A sandbox payment has no sender to return to: the form takes an address.
		chromedp.SetValue("#refund-"+id+"-address", harness.NewOwner(t).Address.Hex(), chromedp.ByID),
		chromedp.Click("#refund-"+id, chromedp.ByID),
		chromedp.WaitVisible("#notice", chromedp.ByID),
		chromedp.Text("#notice", &notice, chromedp.ByID),
	)
	refunds := ten.Root.Get("/v1/payments/"+id+"/refunds").Expect(t, 200).JSON(t)["data"].([]any)
	if len(refunds) != 1 || !strings.Contains(notice, "4.200000 USDC") {
		t.Fatalf("refunds %v, notice %q", refunds, notice)
	}
}

// TestConsole_CheckoutsCSV: the export lists the tenant's checkouts of the status filter (and
// no other tenant's), with a description that starts like a formula defused.
func TestConsole_CheckoutsCSV(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	mine := ten.Root.Post("/v1/payments", map[string]any{"amount": 3, "currency": "USD", "cryptocurrency": "USDC",
		"description": "=HYPERLINK(\"http://evil\")"}).Expect(t, 201).JSON(t)["id"].(string)
	theirs := other.Root.Post("/v1/payments", map[string]any{"amount": 1, "currency": "USD", "cryptocurrency": "USDC"}).Expect(t, 201).JSON(t)["id"].(string)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	for _, q := range []string{"", "?status=CREATED", "?status=created"} {
		p := v.Get("/console/checkouts.csv" + q)
		rows, err := csv.NewReader(strings.NewReader(p.Body)).ReadAll()
		if p.Status != 200 || err != nil || len(rows) != 2 {
			t.Fatalf("%s: %d %v %q", q, p.Status, err, p.Body)
		}
		if rows[1][0] != mine || rows[1][4] != "3.000000" || rows[1][7] != `'=HYPERLINK("http://evil")` || strings.Contains(p.Body, theirs) {
			t.Fatalf("%s: %v", q, rows)
		}
	}
	if p := v.Get("/console/checkouts.csv?status=COMPLETED"); strings.Contains(p.Body, mine) {
		t.Fatalf("the completed filter lists a created checkout: %s", p.Body)
	}
	// Written as the ledger's exports are: CRLF line ends, instants in fixed-width microseconds.
	p := v.Get("/console/checkouts.csv")
	rows, _ := csv.NewReader(strings.NewReader(p.Body)).ReadAll()
	if !strings.HasSuffix(strings.SplitN(p.Body, "\n", 2)[0], "\r") || len(rows) != 2 ||
		!regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`).MatchString(rows[1][1]) {
		t.Fatalf("the export's line ends or instants: %q", p.Body)
	}
	// A status the API does not know is refused, on the page and the export, not an empty list.
	for _, path := range []string{"/console/checkouts?status=bogus", "/console/checkouts.csv?status=bogus"} {
		if p := v.Get(path); p.Status != 422 && p.Status != 400 || !strings.Contains(p.Body, "must be one of created, pending, completed, failed") {
			t.Fatalf("%s: %d\n%s", path, p.Status, p.Body)
		}
	}
}

// TestConsoleBrowserCheckoutsExport: the checkouts page's Export CSV link, followed from the
// signed-in browser with the status filter applied, answers the tenant's checkouts as CSV.
func TestConsoleBrowserCheckoutsExport(t *testing.T) {
	ten := env().NewTenant(t)
	id := ten.Root.Post("/v1/payments", map[string]any{"amount": 4, "currency": "USD", "cryptocurrency": "USDC",
		"description": "Exported order"}).Expect(t, 201).JSON(t)["id"].(string)
	ctx := harness.Browser(t)
	base := env().BaseURL
	var href, body string
	run(t, ctx, "export from the checkouts page",
		chromedp.Navigate(base+"/console/signin"),
		chromedp.WaitVisible("#signin-form", chromedp.ByQuery),
		chromedp.SetValue("#token", ten.SessionToken, chromedp.ByQuery),
		chromedp.Click("#signin", chromedp.ByQuery),
		chromedp.WaitVisible("nav", chromedp.ByQuery),
		chromedp.Navigate(base+"/console/checkouts?status=CREATED"),
		chromedp.WaitVisible("#export-checkouts", chromedp.ByID),
		chromedp.AttributeValue("#export-checkouts", "href", &href, nil, chromedp.ByID),
		chromedp.Evaluate(`fetch(document.querySelector("#export-checkouts").href).then(r => r.text())`, &body,
			func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if !strings.Contains(href, "status=CREATED") || err != nil || len(rows) != 2 || rows[1][0] != id || rows[1][7] != "Exported order" {
		t.Fatalf("the export link %q answered %v (%v):\n%s", href, rows, err, body)
	}
}
