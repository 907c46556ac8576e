package checkout

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corridorhq/corridor/test/harness"
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
	// Completed: the transaction is shown and nothing asks for payment any more, live and on a
	// fresh load.
	want := waitStatus(t, ten.Root, c["id"].(string), "completed")["transaction_hash"].(string)
	for _, load := range []chromedp.Action{chromedp.ActionFunc(func(context.Context) error { return nil }), chromedp.Reload()} {
		var hash string
		var qrShown, copyShown, linkShown bool
		if err := chromedp.Run(ctx, load,
			chromedp.WaitVisible("#transaction-hash", chromedp.ByID),
			chromedp.Text("#transaction-hash", &hash, chromedp.ByID),
			chromedp.Evaluate(`document.getElementById('qr').offsetParent !== null`, &qrShown),
			chromedp.Evaluate(`document.getElementById('copy-address').offsetParent !== null`, &copyShown),
			chromedp.Evaluate(`document.getElementById('wallet-link').offsetParent !== null`, &linkShown),
		); err != nil {
			t.Fatal(err)
		}
		if hash != want || qrShown || copyShown || linkShown {
			t.Fatalf("completed page: transaction %q (want %s), QR shown %v, copy shown %v, wallet link shown %v", hash, want, qrShown, copyShown, linkShown)
		}
	}
}

// TestCheckoutPage_WalletLinkIsEIP681: "Open in wallet" is the checkout's EIP-681 USDC transfer
// URI (ethereum:<USDC>@<chain>/transfer?address=<deposit>&uint256=<units>), not the #ZgotmplZ
// html/template puts in place of a scheme it does not know.
func TestCheckoutPage_WalletLinkIsEIP681(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	c := create(t, ten.Root, 3.5)
	ctx := harness.Browser(t)
	var href string
	if err := chromedp.Run(ctx, chromedp.Navigate(c["payment_url"].(string)),
		chromedp.WaitVisible("#wallet-link", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById('wallet-link').getAttribute('href')`, &href)); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("ethereum:%s@%d/transfer?address=%s&uint256=3500000", env().Chain.USDCAddress().Hex(), int64(c["chain_id"].(float64)), c["deposit_address"])
	if href != want || href != c["payment_uri"] {
		t.Fatalf("wallet link %q, want %q (payment_uri %v)", href, want, c["payment_uri"])
	}
}

// TestCheckoutPage_UnderpaidSaysSo: a partly paid page says how much arrived while there is
// still time and asks for the rest only; once the request expires short, the page says it was underpaid (live, and on a
// fresh load, where the status alone once read as merely expired) and stops asking for payment.
func TestCheckoutPage_UnderpaidSaysSo(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	c := create(t, ten.Root, 10)
	id := c["id"].(string)
	ctx := harness.Browser(t)
	var asked string
	if err := chromedp.Run(ctx, chromedp.Navigate(c["payment_url"].(string)),
		chromedp.Text("#crypto-amount", &asked, chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	if asked != "10.000000" {
		t.Fatalf("before payment the page asks for %q", asked)
	}
	pay(t, c["deposit_address"].(string), 4_000_000)
	mine(t, confirmations)
	waitStatus(t, ten.Root, id, "pending")
	// Live, then on a fresh load: the page says what arrived and asks for the rest only, in
	// its heading, its wallet link and its QR code, so a payer who scans again pays 6, not 10.
	for _, load := range []chromedp.Action{chromedp.ActionFunc(func(context.Context) error { return nil }), chromedp.Reload()} {
		var received, href, qr string
		if err := chromedp.Run(ctx, load,
			chromedp.WaitVisible("#partly-paid", chromedp.ByID),
			chromedp.WaitVisible(`img#qr[src$="?due=6000000"]`, chromedp.ByQuery),
			chromedp.Text("#received-amount", &received, chromedp.ByID),
			chromedp.Text("#crypto-amount", &asked, chromedp.ByID),
			chromedp.Evaluate(`document.getElementById('wallet-link').getAttribute('href')`, &href),
			chromedp.Evaluate(`document.getElementById('qr').getAttribute('src')`, &qr)); err != nil {
			t.Fatal(err)
		}
		if received != "4.000000" || asked != "6.000000" || !strings.HasSuffix(href, "&uint256=6000000") || qr != "/pay/"+id+"/qr.png?due=6000000" {
			t.Fatalf("partly paid: received %q, asks %q, wallet link %q, QR %q", received, asked, href, qr)
		}
	}
	// The QR code under the page's URL is cached; under any other it follows the checkout.
	client := env().Client(t)
	if r := client.Get("/pay/"+id+"/qr.png?due=6000000").Expect(t, 200); r.Header.Get("Cache-Control") != "public, max-age=3600" {
		t.Fatalf("the page's QR URL: Cache-Control %q", r.Header.Get("Cache-Control"))
	}
	for _, stale := range []string{"/pay/" + id + "/qr.png", "/pay/" + id + "/qr.png?due=10000000"} {
		if r := client.Get(stale).Expect(t, 200); r.Header.Get("Cache-Control") != "no-cache" {
			t.Fatalf("%s: Cache-Control %q", stale, r.Header.Get("Cache-Control"))
		}
	}
	ten.Root.Post("/v1/sandbox/payments/"+id+"/expire", nil).Expect(t, 200)
	for _, load := range []chromedp.Action{chromedp.ActionFunc(func(context.Context) error { return nil }), chromedp.Reload()} {
		var detail string
		var payShown bool
		if err := chromedp.Run(ctx, load,
			chromedp.WaitVisible(`#status[data-status="failed"]`, chromedp.ByQuery),
			chromedp.Text("#confirmations", &detail, chromedp.ByID),
			chromedp.Evaluate(`document.getElementById('pay-section').offsetParent !== null`, &payShown)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(detail, "Underpaid: 4.000000 USDC arrived of the 10.000000 USDC requested") || payShown {
			t.Fatalf("underpaid page: %q, payment section shown %v", detail, payShown)
		}
	}
}

// TestCheckoutPage_UnknownIsAnHTMLPage: a payer following a wrong or mistyped link gets a page,
// with the page's security headers, never the JSON envelope.
func TestCheckoutPage_UnknownIsAnHTMLPage(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/pay/chk_00000000000000000000000000", "/pay/not-a-checkout"} {
		r := env().Client(t).Get(path).Expect(t, 404)
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || r.Header.Get("Content-Security-Policy") == "" {
			t.Fatalf("%s: Content-Type %q, CSP %q", path, ct, r.Header.Get("Content-Security-Policy"))
		}
		if !strings.Contains(string(r.Body), "Payment not found") || strings.Contains(string(r.Body), `"code"`) {
			t.Fatalf("%s: %s", path, r.Body)
		}
	}
	var title string
	if err := chromedp.Run(harness.Browser(t), chromedp.Navigate(env().BaseURL+"/pay/chk_00000000000000000000000000"),
		chromedp.Text("#error-title", &title, chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	if title != "Payment not found" {
		t.Fatalf("title %q", title)
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
