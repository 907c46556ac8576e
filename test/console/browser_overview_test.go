package console

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/corridorhq/corridor/test/harness"
)

// TestConsoleBrowserVolumeAndEventRedeliver: the overview charts the money moved per day (a
// sandbox deposit shows as money in), and an event's page lists its deliveries; clicking
// Redeliver sends the event to the endpoint again and the page says so.
func TestConsoleBrowserVolumeAndEventRedeliver(t *testing.T) {
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "12.5"}).Expect(t, 201)
	rcv := harness.NewWebhookReceiver(t, 0)
	endpoint := ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": rcv.URL() + "/hook"}).Expect(t, 201).JSON(t)["id"].(string)
	ten.Root.Post("/v1/agents", map[string]any{"name": "Redelivered agent"}).Expect(t, 201)
	first := rcv.Wait(t, 1)[0]
	eventID, _ := first.Event["id"].(string)
	deliveries := ten.Root.Get("/v1/webhook-endpoints/"+endpoint+"/deliveries").Expect(t, 200).JSON(t)["deliveries"].([]any)
	deliveryID := ""
	for _, d := range deliveries {
		if d := d.(map[string]any); d["eventId"] == eventID {
			deliveryID, _ = d["id"].(string)
		}
	}
	if eventID == "" || deliveryID == "" {
		t.Fatalf("event %q, deliveries %v", eventID, deliveries)
	}
	before := len(rcv.Wait(t, 1))

	ctx := harness.Browser(t)
	base := env().BaseURL
	var totals, notice string
	var bars int
	run(t, ctx, "overview with the volume chart",
		chromedp.Navigate(base+"/console/signin"),
		chromedp.WaitVisible("#signin-form", chromedp.ByQuery),
		chromedp.SetValue("#token", ten.SessionToken, chromedp.ByQuery),
		chromedp.Click("#signin", chromedp.ByQuery),
		chromedp.WaitVisible("#volume-chart", chromedp.ByID),
		chromedp.Text("#volume-totals", &totals, chromedp.ByID),
		chromedp.Evaluate(`document.querySelectorAll("#volume-chart rect.chart-in").length`, &bars),
	)
	if !strings.Contains(totals, "12.50") || bars != 1 {
		t.Fatalf("volume totals %q with %d bars of money in", totals, bars)
	}
	run(t, ctx, "redeliver from the event's page",
		chromedp.Navigate(base+"/console/events/"+eventID),
		chromedp.WaitVisible("#deliveries", chromedp.ByID),
		chromedp.Click("#redeliver-"+deliveryID, chromedp.ByID),
		chromedp.WaitVisible("#notice", chromedp.ByID),
		chromedp.Text("#notice", &notice, chromedp.ByID),
	)
	if !strings.Contains(notice, "Redelivery queued to "+endpoint) {
		t.Fatalf("notice %q", notice)
	}
	harness.Poll(t, "the redelivery arrives", func() map[string]any {
		n := 0
		for _, d := range rcv.Wait(t, before+1) {
			if d.Event["id"] == eventID {
				n++
			}
		}
		return map[string]any{"n": n}
	}, func(m map[string]any) bool { return m["n"].(int) >= 2 })
}
