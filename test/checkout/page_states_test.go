package checkout

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/corridorhq/corridor/test/harness"
)

// pageText is what the page says: the merchant, the network, the status line and the detail.
type pageText struct{ merchant, network, status, detail, rule string }

// readPage waits for the page's status to be status (live, or after load) and reads it.
func readPage(t *testing.T, ctx context.Context, load chromedp.Action, status string) pageText {
	t.Helper()
	var p pageText
	if err := chromedp.Run(ctx, load,
		chromedp.WaitVisible(`#status[data-status="`+status+`"]`, chromedp.ByQuery),
		chromedp.Text("#merchant", &p.merchant, chromedp.ByID),
		chromedp.TextContent("#network", &p.network, chromedp.ByID),
		chromedp.Text("#status", &p.status, chromedp.ByID),
		chromedp.TextContent("#confirmations", &p.detail, chromedp.ByID),
		chromedp.Text("#depth-rule", &p.rule, chromedp.ByID),
	); err != nil {
		t.Fatal(err)
	}
	return p
}

var seenPattern = regexp.MustCompile(`^[0-3] of 3 confirmations$`)

// TestCheckoutPage_EveryState: the hosted page names the merchant and the network, says
// "3 confirmations" in its rule, and has its own words for each state, both as the script moves
// it on and on a fresh load: waiting, seen with N of 3 confirmations, completed, overpaid,
// expired with nothing paid, and underpaid.
func TestCheckoutPage_EveryState(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	merchant := ten.Root.Get("/v1/tenants/current").Expect(t, 200).JSON(t)["name"].(string)
	// The network by the name a payer's wallet shows, with the id to compare (the test chain is Base Sepolia's).
	network := "Base Sepolia (testnet) (chain id 84532)"
	check := func(t *testing.T, p pageText, status, detail string) {
		t.Helper()
		if p.merchant != merchant || !strings.Contains(p.network, network) || !strings.Contains(p.rule, "once 3 confirmations deep") {
			t.Fatalf("merchant %q (want %q), network %q, rule %q", p.merchant, merchant, p.network, p.rule)
		}
		if p.status != status || !strings.Contains(p.detail, detail) {
			t.Fatalf("status %q detail %q; want %q and %q", p.status, p.detail, status, detail)
		}
	}
	noop := chromedp.ActionFunc(func(context.Context) error { return nil })

	t.Run("waiting, seen, completed", func(t *testing.T) {
		t.Parallel()
		c := create(t, ten.Root, 6)
		ctx := harness.Browser(t)
		check(t, readPage(t, ctx, chromedp.Navigate(c["payment_url"].(string)), "created"), "Waiting for payment", "")
		// Part of the amount: the page stays seen whatever other tests mine meanwhile.
		pay(t, c["deposit_address"].(string), 1_000_000)
		mine(t, 1)
		p := readPage(t, ctx, noop, "pending")
		check(t, p, "Payment seen", "of 3 confirmations")
		if !seenPattern.MatchString(strings.TrimSpace(p.detail)) {
			t.Fatalf("seen detail %q", p.detail)
		}
		check(t, readPage(t, ctx, chromedp.Reload(), "pending"), "Payment seen", "of 3 confirmations")
		pay(t, c["deposit_address"].(string), 5_000_000)
		mine(t, confirmations)
		check(t, readPage(t, ctx, noop, "completed"), "Payment completed", "Thank you.")
	})
	t.Run("overpaid", func(t *testing.T) {
		t.Parallel()
		c := create(t, ten.Root, 2)
		ctx := harness.Browser(t)
		readPage(t, ctx, chromedp.Navigate(c["payment_url"].(string)), "created")
		pay(t, c["deposit_address"].(string), 2_500_000)
		mine(t, confirmations)
		want := "Overpaid: 2.500000 USDC arrived for the 2.000000 USDC requested"
		check(t, readPage(t, ctx, noop, "completed"), "Payment completed: overpaid", want)
		check(t, readPage(t, ctx, chromedp.Reload(), "completed"), "Payment completed: overpaid", want)
	})
	t.Run("expired", func(t *testing.T) {
		t.Parallel()
		c := create(t, ten.Root, 3)
		ctx := harness.Browser(t)
		readPage(t, ctx, chromedp.Navigate(c["payment_url"].(string)), "created")
		ten.Root.Post("/v1/sandbox/payments/"+c["id"].(string)+"/expire", nil).Expect(t, 200)
		want := "This payment request expired before a payment arrived."
		check(t, readPage(t, ctx, noop, "failed"), "Payment request expired", want)
		check(t, readPage(t, ctx, chromedp.Reload(), "failed"), "Payment request expired", want)
	})
	t.Run("expired, then paid late", func(t *testing.T) {
		t.Parallel()
		c := create(t, ten.Root, 3)
		ten.Root.Post("/v1/sandbox/payments/"+c["id"].(string)+"/expire", nil).Expect(t, 200)
		waitStatus(t, ten.Root, c["id"].(string), "failed")
		pay(t, c["deposit_address"].(string), 3_000_000)
		mine(t, confirmations)
		harness.Poll(t, "the late payment recorded", func() map[string]any { return get(t, ten.Root, c["id"].(string)) },
			func(m map[string]any) bool { return m["amount_received"] == "3.000000" })
		ctx := harness.Browser(t)
		check(t, readPage(t, ctx, chromedp.Navigate(c["payment_url"].(string)), "failed"), "Payment request expired",
			"This payment request expired before a payment arrived; 3.000000 USDC arrived after it. Contact the merchant for a refund.")
	})
	t.Run("underpaid", func(t *testing.T) {
		t.Parallel()
		c := create(t, ten.Root, 5)
		pay(t, c["deposit_address"].(string), 1_000_000)
		mine(t, confirmations)
		waitStatus(t, ten.Root, c["id"].(string), "pending")
		ten.Root.Post("/v1/sandbox/payments/"+c["id"].(string)+"/expire", nil).Expect(t, 200)
		ctx := harness.Browser(t)
		check(t, readPage(t, ctx, chromedp.Navigate(c["payment_url"].(string)), "failed"), "Underpaid",
			"Underpaid: 1.000000 USDC arrived of the 5.000000 USDC requested")
	})
}
