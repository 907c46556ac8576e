package crash

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/test/harness"
)

// TestCrash_WebhookDeliveredBeforeItsRecord: the service is killed right after a partner's
// endpoint answered 200 and before the attempt was recorded. Started again, the delivery is
// retried: the receiver gets the same event again (at least once, never lost; receivers
// deduplicate on the event id), and every delivery ends SUCCEEDED.
func TestCrash_WebhookDeliveredBeforeItsRecord(t *testing.T) {
	t.Parallel()
	url, bin, first, env := crashSetup(t, kernel.CrashWebhookDelivered, false)
	sender, recipient := env.NewTenant(t), env.NewTenant(t)
	rcv := harness.NewWebhookReceiver(t, 0)
	ep := sender.Root.Post("/v1/webhook-endpoints", map[string]any{"url": rcv.URL() + "/hook", "events": []string{"*"}}).
		Expect(t, 201).JSON(t)
	sender.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "20"}).Expect(t, 201)
	phone := verifiedRecipient(t, recipient.Root)
	// The payment's events are delivered after its commit; the first delivery may kill the
	// process before the payment's answer is read.
	go sender.Root.PostIgnoringAnswer("/v1/offramp/payments", `{"phone":"`+phone+`","amountUsd":"2"}`)
	first.waitKilled(t)
	crashed := rcv.Wait(t, 1)[0].Event["id"]

	second := startService(t, bin, url, "")
	env.BaseURL = second.base
	deadline := time.Now().Add(3 * time.Minute)
	for {
		list := sender.Root.Get("/v1/webhook-endpoints/"+ep["id"].(string)+"/deliveries").Expect(t, 200).JSON(t)
		if allSucceeded(list["deliveries"].([]any)) && timesDelivered(t, rcv, crashed) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the restart the deliveries are %v; the event delivered at the crash arrived %d times, want a retry",
				list, timesDelivered(t, rcv, crashed))
		}
		time.Sleep(200 * time.Millisecond)
	}
	list := sender.Root.Get("/v1/webhook-endpoints/"+ep["id"].(string)+"/deliveries").Expect(t, 200).JSON(t)
	assertCutOffAttemptRecorded(t, list["deliveries"].([]any), crashed)
}

// assertCutOffAttemptRecorded: the delivery of the event whose attempt the crash cut off lists
// that attempt first, with outcome UNKNOWN and no status, then the attempt that succeeded.
func assertCutOffAttemptRecorded(t *testing.T, deliveries []any, eventID any) {
	t.Helper()
	for _, raw := range deliveries {
		d := raw.(map[string]any)
		if d["eventId"] != eventID {
			continue
		}
		attempts := d["attempts"].([]any)
		first, last := attempts[0].(map[string]any), attempts[len(attempts)-1].(map[string]any)
		if len(attempts) < 2 || first["outcome"] != "UNKNOWN" || first["statusCode"] != nil || first["number"] != float64(1) ||
			last["outcome"] != "SUCCEEDED" {
			t.Fatalf("the delivery cut off by the crash lists %v, want the cut-off attempt (UNKNOWN) then a success", attempts)
		}
		return
	}
	t.Fatalf("no delivery of the event %v among %v", eventID, deliveries)
}

// allSucceeded reports a non-empty list of deliveries that all succeeded.
func allSucceeded(deliveries []any) bool {
	for _, d := range deliveries {
		if d.(map[string]any)["status"] != "SUCCEEDED" {
			return false
		}
	}
	return len(deliveries) > 0
}

// timesDelivered counts the requests the receiver got for an event.
func timesDelivered(t *testing.T, rcv *harness.WebhookReceiver, eventID any) int {
	t.Helper()
	n := 0
	for _, d := range rcv.Wait(t, 0) {
		if d.Event["id"] == eventID {
			n++
		}
	}
	return n
}
