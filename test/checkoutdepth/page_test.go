package checkoutdepth

import (
	"context"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/test/harness"
)

// seenOfOne is the seen state's detail at a depth of one: singular, never "1 confirmations".
var seenOfOne = regexp.MustCompile(`^[01] of 1 confirmation$`)

// TestCheckoutPage_OneConfirmationIsSingular: a partly paid checkout is seen; the page says
// "N of 1 confirmation" and its rule "once 1 confirmation deep", live and after a reload.
func TestCheckoutPage_OneConfirmationIsSingular(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	c := ten.Root.Post("/v1/payments", map[string]any{"amount": 4, "currency": "USD", "cryptocurrency": "USDC",
		"description": "Order 1"}).Expect(t, 201).JSON(t)
	ctx := harness.Browser(t)
	read := func(load chromedp.Action) (detail, rule string) {
		t.Helper()
		if err := chromedp.Run(ctx, load,
			chromedp.WaitVisible(`#status[data-status="pending"]`, chromedp.ByQuery),
			chromedp.TextContent("#confirmations", &detail, chromedp.ByID),
			chromedp.Text("#depth-rule", &rule, chromedp.ByID)); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(detail), rule
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(c["payment_url"].(string)),
		chromedp.WaitVisible(`#status[data-status="created"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	// A quarter of the amount: the checkout stays seen, however deep the transfer gets.
	if _, err := env().Chain.MintUSDC(context.Background(), common.HexToAddress(c["deposit_address"].(string)), big.NewInt(1_000_000)); err != nil {
		t.Fatal(err)
	}
	if _, err := env().Chain.MineSimulated(); err != nil {
		t.Fatal(err)
	}
	// First as the script moves the open page on, then as the server renders it afresh.
	for i, load := range []chromedp.Action{chromedp.ActionFunc(func(context.Context) error { return nil }), chromedp.Reload()} {
		detail, rule := read(load)
		if !seenOfOne.MatchString(detail) || !strings.Contains(rule, "once 1 confirmation deep") {
			t.Fatalf("%s: detail %q, rule %q", []string{"live", "reloaded"}[i], detail, rule)
		}
	}
}
