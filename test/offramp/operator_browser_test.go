package offramp

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/corridorhq/corridor/test/harness"
)

// TestOfframp_OperatorConsoleBrowser: in headless Chromium an operator signs in with the
// operator token, finds a payment held for review, ticks the confirmation and approves it; the
// page says so and the payment's checks ran again.
func TestOfframp_OperatorConsoleBrowser(t *testing.T) {
	t.Parallel()
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	id := p.create(t, "6.000091", nil).Expect(t, 201).JSON(t)["paymentId"].(string)

	ctx := harness.Browser(t)
	base := env().BaseURL
	var notice string
	err := chromedp.Run(ctx,
		chromedp.Navigate(base+"/console/operator"),
		chromedp.WaitVisible("#operator-signin-form", chromedp.ByQuery),
		chromedp.SetValue("#operator-token", harness.OperatorToken, chromedp.ByQuery),
		chromedp.Click("#operator-signin", chromedp.ByQuery),
		chromedp.WaitVisible("#operator-payments", chromedp.ByQuery),
		chromedp.WaitVisible("#approve-"+id, chromedp.ByQuery),
		chromedp.Click("#confirm-"+id, chromedp.ByQuery),
		chromedp.Click("#approve-submit-"+id, chromedp.ByQuery),
		chromedp.WaitVisible("#notice", chromedp.ByQuery),
		chromedp.Text("#notice", &notice, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("operator console in the browser: %v", err)
	}
	if !strings.Contains(notice, "Review approved for "+id) {
		t.Fatalf("notice %q", notice)
	}
	if g := get(t, p.sender.Root, id); g["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("after the approval in the browser: %v", g)
	}
}
