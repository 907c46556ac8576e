package faults

import (
	"net/url"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/test/harness/faultproxy"
)

// TestWebhookFaults_ReceiverTimesOutAfterProcessing: a partner's receiver takes a delivery and
// does the work, but its answer does not come back within the delivery time-out. The service
// records a failed attempt and delivers the same event again (at least once: receivers
// deduplicate on the event id, docs/webhooks.md) until an answer arrives; the delivery ends
// SUCCEEDED and the endpoint stays enabled, with no operator action.
func TestWebhookFaults_ReceiverTimesOutAfterProcessing(t *testing.T) {
	ten := harness.Shared().NewTenant(t)
	rcv := harness.NewWebhookReceiver(t, 0)
	target, err := url.Parse(rcv.URL())
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := faultproxy.Start(target.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	ep := ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": "http://" + proxy.Addr() + "/hook",
		"events": []string{"agent.suspended"}}).Expect(t, 201).JSON(t)
	epID, secret := ep["id"].(string), ep["secret"].(string)

	proxy.HoldReplies()
	agent := ten.Root.Post("/v1/agents", map[string]any{"name": "slow receiver"}).Expect(t, 201).JSON(t)["id"].(string)
	ten.Root.Post("/v1/agents/"+agent+"/suspend", nil).Expect(t, 200)
	// The receiver has the event; the service, not hearing back, records a failed attempt.
	first := rcv.Wait(t, 1)[0]
	deliveries := func() map[string]any {
		return ten.Root.Get("/v1/webhook-endpoints/"+epID+"/deliveries").Expect(t, 200).JSON(t)
	}
	harness.Poll(t, "a failed attempt", deliveries, func(m map[string]any) bool {
		ds := m["deliveries"].([]any)
		return len(ds) == 1 && len(ds[0].(map[string]any)["attempts"].([]any)) >= 1
	})
	proxy.Resume()

	done := harness.Poll(t, "the delivery succeeds", deliveries, func(m map[string]any) bool {
		return m["deliveries"].([]any)[0].(map[string]any)["status"] == "SUCCEEDED"
	})
	attempts := done["deliveries"].([]any)[0].(map[string]any)["attempts"].([]any)
	if len(attempts) < 2 || attempts[0].(map[string]any)["statusCode"] == float64(200) {
		t.Fatalf("attempts %v: want a failed first attempt, then a success", attempts)
	}
	got := rcv.Wait(t, 2)
	for i, d := range got {
		if d.Event["id"] != first.Event["id"] || !harness.VerifyWebhookSignature(secret, d.Signature, d.Body) {
			t.Fatalf("delivery %d: event %v (first %v), or its signature does not verify", i+1, d.Event["id"], first.Event["id"])
		}
	}
	if ep := ten.Root.Get("/v1/webhook-endpoints/"+epID).Expect(t, 200).JSON(t); ep["enabled"] != true || ep["failingSince"] != nil {
		t.Fatalf("endpoint after recovery: %v", ep)
	}
}
