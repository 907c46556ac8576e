package console

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/test/harness"
)

// TestConsoleBrowserWebhookFormAndTestEvent: the endpoint form offers exactly the documented
// event types (the checkout's payment.* included, claim.redeemed and invoice.paid not), says
// which schemes a URL may use, and an endpoint's "Send test event" delivers a signed event of
// the chosen type to it.
func TestConsoleBrowserWebhookFormAndTestEvent(t *testing.T) {
	ten := env().NewTenant(t)
	rcv := harness.NewWebhookReceiver(t, 0)
	ctx := harness.Browser(t)
	base := env().BaseURL
	var offered []string
	var label, secret string
	run(t, ctx, "the endpoint form",
		chromedp.Navigate(base+"/console/signin"),
		chromedp.WaitVisible("#signin-form", chromedp.ByQuery),
		chromedp.SetValue("#token", ten.SessionToken, chromedp.ByQuery),
		chromedp.Click("#signin", chromedp.ByQuery),
		chromedp.WaitVisible("nav", chromedp.ByQuery),
		chromedp.Navigate(base+"/console/webhooks"),
		chromedp.WaitVisible("#add-endpoint", chromedp.ByID),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#event-types input[name="events"]')).map(i => i.value).filter(v => v !== "*")`, &offered),
		chromedp.Text(`label:has(#endpoint-url)`, &label, chromedp.ByQuery),
	)
	want := event.DocumentedTypes()
	if strings.Join(slices.Sorted(slices.Values(offered)), ",") != strings.Join(want, ",") {
		t.Fatalf("the form offers %d types %v; want exactly the %d documented", len(offered), offered, len(want))
	}
	if !strings.Contains(label, "https (http for loopback in TEST)") {
		t.Fatalf("the URL's label is %q", label)
	}
	run(t, ctx, "add an endpoint for payment.completed",
		chromedp.SetValue("#endpoint-url", rcv.URL()+"/hook", chromedp.ByID),
		chromedp.Click(`input[name="events"][value="payment.completed"]`, chromedp.ByQuery),
		chromedp.Click("#add-endpoint-submit", chromedp.ByID),
		chromedp.WaitVisible("#endpoint-secret", chromedp.ByID),
		chromedp.Text("#endpoint-secret", &secret, chromedp.ByID),
	)
	eps := ten.Root.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)["endpoints"].([]any)
	endpointID := eps[0].(map[string]any)["id"].(string)
	// A test event is about a real object of the tenant's: here, a checkout.
	ten.Root.Post("/v1/payments", map[string]any{"amount": 10, "currency": "USD", "cryptocurrency": "USDC", "description": "Order 11"}).Expect(t, 201)
	var notice string
	var choices []string
	run(t, ctx, "send a test event",
		chromedp.Navigate(base+"/console/webhooks/"+endpointID),
		chromedp.WaitVisible("#send-test-event", chromedp.ByID),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#test-event-type option")).map(o => o.value)`, &choices),
		chromedp.Click("#send-test-event-submit", chromedp.ByID),
		chromedp.WaitVisible("#notice", chromedp.ByID),
		chromedp.Text("#notice", &notice, chromedp.ByID),
	)
	if strings.Join(choices, ",") != "payment.completed" || !strings.Contains(notice, "Test event evt_") {
		t.Fatalf("test event choices %v, notice %q", choices, notice)
	}
	got := rcv.Wait(t, 1)[0]
	if got.Event["type"] != "payment.completed" || !harness.VerifyWebhookSignature(strings.TrimSpace(secret), got.Signature, got.Body) {
		t.Fatalf("delivered %s signed %q", got.Body, got.Signature)
	}
}

// TestConsole_WebhookFormRefusesUndocumentedType: a hand-made form naming claim.redeemed adds
// no endpoint.
func TestConsole_WebhookFormRefusesUndocumentedType(t *testing.T) {
	ten := env().NewTenant(t)
	t.Parallel()
	before := endpointTotal(t, ten)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	v.Get("/console/webhooks")
	form := v.Form("/console/webhooks", url.Values{"url": {"https://example.com/hook"}, "events": {"claim.redeemed"}})
	if p := v.Post("/console/webhooks", form, false); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "not a documented event type") {
		t.Fatalf("an undocumented type: %d\n%s", p.Status, p.Body)
	}
	if after := endpointTotal(t, ten); after != before {
		t.Fatalf("endpoints %v → %v", before, after)
	}
}
