package checkout

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"corridor/test/harness"
)

var countdownPattern = regexp.MustCompile(`^(29|30):\d\d$`)

// TestCheckoutPage_PhonePaysAndSeesCompleted: on a phone-sized screen the payment page shows
// the amount, the deposit address and a QR code that loads; once the test pays on the
// simulated chain and the transfer is confirmed, the page turns completed without a reload.
func TestCheckoutPage_PhonePaysAndSeesCompleted(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	c := create(t, ten.Root, 7.25)
	ctx := harness.Browser(t)

	var amount, address, status, marker, countdown string
	var qrWidth int
	var overflow bool
	if err := chromedp.Run(ctx,
		harness.MobileViewport(),
		chromedp.Navigate(c["payment_url"].(string)),
		chromedp.WaitVisible("#deposit-address", chromedp.ByID),
		chromedp.Text("#amount", &amount, chromedp.ByID),
		chromedp.Text("#deposit-address", &address, chromedp.ByID),
		chromedp.Poll(`document.getElementById('qr').complete && document.getElementById('qr').naturalWidth`, &qrWidth, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Text("#status", &status, chromedp.ByID),
		chromedp.Text("#countdown", &countdown, chromedp.ByID),
		chromedp.Evaluate(`document.documentElement.scrollWidth > window.innerWidth`, &overflow),
		// A marker set now survives only if the page never reloads.
		chromedp.Evaluate(`window.__noReload = 'kept'`, &marker),
	); err != nil {
		t.Fatal(err)
	}
	if amount != "7.25" || address != c["deposit_address"] || qrWidth == 0 || overflow {
		t.Fatalf("page shows amount %q, address %q (want %v), QR width %d, horizontal overflow %v", amount, address, c["deposit_address"], qrWidth, overflow)
	}
	if !countdownPattern.MatchString(countdown) {
		t.Fatalf("countdown %q, want minutes:seconds (about 30 minutes left)", countdown)
	}
	if !strings.Contains(strings.ToLower(status), "waiting") {
		t.Fatalf("status before payment: %q", status)
	}

	pay(t, address, 7_250_000)
	mine(t, confirmations)
	var kept string
	if err := chromedp.Run(ctx,
		chromedp.WaitVisible(`#status[data-status="completed"]`, chromedp.ByQuery),
		chromedp.Text("#status", &status, chromedp.ByID),
		chromedp.Evaluate(`window.__noReload`, &kept),
	); err != nil {
		t.Fatal(err)
	}
	if status != "Payment completed" || kept != "kept" {
		t.Fatalf("after payment: status %q, marker %q (the page reloaded?)", status, kept)
	}
}

// TestCheckoutPage_StrictContentSecurityPolicy: the page allows only its own script and styles
// (no inline script), and its labels and live region are in place.
func TestCheckoutPage_StrictContentSecurityPolicy(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	c := create(t, ten.Root, 1)
	r := env().Client(t).Get(strings.TrimPrefix(c["payment_url"].(string), env().BaseURL)).Expect(t, 200)
	csp := r.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Fatalf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") {
		t.Fatalf("CSP allows inline code: %q", csp)
	}
	page := string(r.Body)
	for _, want := range []string{`<html lang="en">`, `aria-live="polite"`, `role="status"`, `alt="QR code`, `name="viewport"`,
		`src="/checkout-assets/checkout.js"`} {
		if !strings.Contains(page, want) {
			t.Fatalf("page lacks %s", want)
		}
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, "style=") {
		t.Fatal("page has inline script or style")
	}
	env().Client(t).Get("/checkout-assets/checkout.js").Expect(t, 200)
	env().Client(t).Get("/pay/chk_00000000000000000000000000").Expect(t, 404)
}
