package webhooks

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
	"github.com/corridorhq/corridor/test/harness"
)

// endpoint registers url for the agent events and returns its id and secret.
func endpoint(t *testing.T, c *harness.Client, url string, events ...string) (string, string) {
	t.Helper()
	body := map[string]any{"url": url}
	if len(events) > 0 {
		body["events"] = events
	}
	ep := c.Post("/v1/webhook-endpoints", body).Expect(t, 201).JSON(t)
	secret, _ := ep["secret"].(string)
	if !strings.HasPrefix(secret, "whsec_") || ep["enabled"] != true {
		t.Fatalf("created endpoint: %v", ep)
	}
	return ep["id"].(string), secret
}

// suspendAgent creates an agent and suspends it: agent.created, then one agent.suspended event.
func suspendAgent(t *testing.T, c *harness.Client) string {
	t.Helper()
	id := c.Post("/v1/agents", map[string]any{"name": "webhook agent"}).Expect(t, 201).JSON(t)["id"].(string)
	c.Post("/v1/agents/"+id+"/suspend", nil).Expect(t, 200)
	return id
}

func TestWebhooks_SignedDeliveryAndEvents(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	rcv := harness.NewWebhookReceiver(t, 0)
	epID, secret := endpoint(t, ten.Root, rcv.URL()+"/hook", "agent.suspended")
	agentID := suspendAgent(t, ten.Root)

	got := rcv.Wait(t, 1)[0]
	if !harness.VerifyWebhookSignature(secret, got.Signature, got.Body) {
		t.Fatalf("signature %q does not verify with the documented recipe", got.Signature)
	}
	if harness.VerifyWebhookSignature("whsec_wrong", got.Signature, got.Body) {
		t.Fatal("a wrong secret verifies")
	}
	// The Go SDK's helper verifies the real delivery too, and refuses a wrong secret.
	if err := corridor.VerifyWebhook(got.Body, got.Signature, time.Now(), "whsec_old", secret); err != nil {
		t.Fatalf("corridor.VerifyWebhook: %v", err)
	}
	if err := corridor.VerifyWebhook(got.Body, got.Signature, time.Now(), "whsec_wrong"); !errors.Is(err, corridor.ErrWebhookSignature) {
		t.Fatalf("corridor.VerifyWebhook with a wrong secret: %v", err)
	}
	ev := got.Event
	data, _ := ev["data"].(map[string]any)
	if ev["type"] != "agent.suspended" || ev["event"] != "agent.suspended" || data["id"] != agentID || data["status"] != "SUSPENDED" {
		t.Fatalf("delivered event: %v", ev)
	}

	// The same event through the API: listed with the type filter, and by id.
	list := ten.Root.Get("/v1/events?type=agent.suspended").Expect(t, 200).JSON(t)
	events := list["events"].([]any)
	if len(events) != 1 || events[0].(map[string]any)["id"] != ev["id"] {
		t.Fatalf("events list: %v", list)
	}
	one := ten.Root.Get("/v1/events/"+ev["id"].(string)).Expect(t, 200).JSON(t)
	if one["type"] != "agent.suspended" {
		t.Fatalf("event: %v", one)
	}
	// The delivered body: one spelling of its instant, with a six-digit fraction, and the same
	// bytes GET /v1/events/{id}/payload answers.
	if _, dual := ev["createdAt"]; dual || !fixedFraction.MatchString(fmt.Sprint(ev["created_at"])) {
		t.Fatalf("delivered payload's instants: %v", ev)
	}
	if !fixedFraction.MatchString(fmt.Sprint(one["createdAt"])) {
		t.Fatalf("the event's createdAt %v has no fixed six-digit fraction", one["createdAt"])
	}
	if payload := ten.Root.Get("/v1/events/"+ev["id"].(string)+"/payload").Expect(t, 200); string(payload.Body) != string(got.Body) {
		t.Fatalf("GET …/payload answers %s, the delivery carried %s", payload.Body, got.Body)
	}
	if n := len(ten.Root.Get("/v1/events?type=agent.*").Expect(t, 200).JSON(t)["events"].([]any)); n != 2 { // created, suspended
		t.Fatalf("family filter: %d events", n)
	}
	if n := len(ten.Root.Get("/v1/events?type=invoice.paid").Expect(t, 200).JSON(t)["events"].([]any)); n != 0 {
		t.Fatalf("another type: %d events", n)
	}
	if n := len(ten.Root.Get("/v1/events?from=2999-01-01T00:00:00Z").Expect(t, 200).JSON(t)["events"].([]any)); n != 0 {
		t.Fatalf("a future window: %d events", n)
	}
	ten.Root.Get("/v1/events?from=yesterday").ExpectError(t, 400, "VALIDATION_FAILED")
	ten.Root.Get("/v1/events?type=Not%20A%20Type").ExpectError(t, 400, "VALIDATION_FAILED")

	// The delivery and its one attempt; the secret is never shown again.
	deliveries := poll(t, func() map[string]any {
		return ten.Root.Get("/v1/webhook-endpoints/"+epID+"/deliveries").Expect(t, 200).JSON(t)
	},
		func(m map[string]any) bool {
			ds := m["deliveries"].([]any)
			return len(ds) == 1 && ds[0].(map[string]any)["status"] == "SUCCEEDED"
		})
	d := deliveries["deliveries"].([]any)[0].(map[string]any)
	attempts := d["attempts"].([]any)
	if d["eventId"] != ev["id"] || len(attempts) != 1 || attempts[0].(map[string]any)["statusCode"] != float64(200) {
		t.Fatalf("delivery: %v", d)
	}
	if got := ten.Root.Get("/v1/webhook-endpoints/"+epID).Expect(t, 200).JSON(t); got["secret"] != nil {
		t.Fatalf("the secret is shown again: %v", got)
	}
	// Reactivating is another event, not subscribed to: nothing more is delivered to it.
	ten.Root.Post("/v1/agents/"+agentID+"/reactivate", nil).Expect(t, 200)
	poll(t, func() map[string]any { return ten.Root.Get("/v1/events?type=agent.reactivated").Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return len(m["events"].([]any)) == 1 })
}

func TestWebhooks_RetriedUntilSuccessWithTheSameEvent(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	rcv := harness.NewWebhookReceiver(t, 2)
	epID, secret := endpoint(t, ten.Root, rcv.URL(), "agent.suspended")
	suspendAgent(t, ten.Root)

	got := rcv.Wait(t, 3)
	for i, d := range got {
		if !harness.VerifyWebhookSignature(secret, d.Signature, d.Body) {
			t.Fatalf("attempt %d: signature does not verify", i+1)
		}
		if d.Event["id"] != got[0].Event["id"] {
			t.Fatalf("attempt %d carries event %v, the first %v", i+1, d.Event["id"], got[0].Event["id"])
		}
	}
	deliveries := poll(t, func() map[string]any {
		return ten.Root.Get("/v1/webhook-endpoints/"+epID+"/deliveries").Expect(t, 200).JSON(t)
	},
		func(m map[string]any) bool {
			ds := m["deliveries"].([]any)
			return len(ds) == 1 && ds[0].(map[string]any)["status"] == "SUCCEEDED"
		})
	attempts := deliveries["deliveries"].([]any)[0].(map[string]any)["attempts"].([]any)
	var codes []any
	for _, a := range attempts {
		codes = append(codes, a.(map[string]any)["statusCode"])
	}
	if len(codes) != 3 || codes[0] != float64(500) || codes[1] != float64(500) || codes[2] != float64(200) {
		t.Fatalf("attempts: %v", codes)
	}
	// The endpoint recovered: no failure run is left.
	if ep := ten.Root.Get("/v1/webhook-endpoints/"+epID).Expect(t, 200).JSON(t); ep["failingSince"] != nil || ep["enabled"] != true {
		t.Fatalf("endpoint after recovery: %v", ep)
	}
}

func TestWebhooks_RedeliverAndRotate(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	rcv := harness.NewWebhookReceiver(t, 0)
	epID, secret := endpoint(t, ten.Root, rcv.URL(), "agent.suspended")
	suspendAgent(t, ten.Root)
	first := rcv.Wait(t, 1)[0]
	ds := poll(t, func() map[string]any {
		return ten.Root.Get("/v1/webhook-endpoints/"+epID+"/deliveries").Expect(t, 200).JSON(t)
	},
		func(m map[string]any) bool { return len(m["deliveries"].([]any)) == 1 })
	deliveryID := ds["deliveries"].([]any)[0].(map[string]any)["id"].(string)

	// A patch that changes nothing writes nothing: updatedAt stays.
	stored := ten.Root.Get("/v1/webhook-endpoints/"+epID).Expect(t, 200).JSON(t)
	for _, noop := range []any{map[string]any{}, map[string]any{"url": nil}, map[string]any{"events": []string{"agent.suspended"}, "enabled": true}} {
		if same := ten.Root.Do("PATCH", "/v1/webhook-endpoints/"+epID, noop).Expect(t, 200).JSON(t); same["updatedAt"] != stored["updatedAt"] {
			t.Fatalf("a patch %v that changes nothing moved updatedAt: %v, was %v", noop, same["updatedAt"], stored["updatedAt"])
		}
	}

	// Rotating the secret shows the new one once; the redelivery is signed with it.
	rotated := ten.Root.Do("PATCH", "/v1/webhook-endpoints/"+epID, map[string]any{"rotateSecret": true}).Expect(t, 200).JSON(t)
	newSecret, _ := rotated["secret"].(string)
	if !strings.HasPrefix(newSecret, "whsec_") || newSecret == secret {
		t.Fatalf("rotated: %v", rotated)
	}
	re := ten.Root.Post("/v1/webhook-deliveries/"+deliveryID+"/redeliver", nil).Expect(t, 201).JSON(t)
	if re["redeliveryOf"] != deliveryID || re["eventId"] != first.Event["id"] {
		t.Fatalf("redelivery: %v", re)
	}
	second := rcv.Wait(t, 2)[1]
	if second.Event["id"] != first.Event["id"] {
		t.Fatalf("redelivered event %v, first %v", second.Event["id"], first.Event["id"])
	}
	if !harness.VerifyWebhookSignature(newSecret, second.Signature, second.Body) || harness.VerifyWebhookSignature(secret, second.Signature, second.Body) {
		t.Fatal("the redelivery is not signed with the rotated secret only")
	}

	// Disabled endpoints receive nothing and cannot be redelivered to; deleting hides it.
	ten.Root.Do("PATCH", "/v1/webhook-endpoints/"+epID, map[string]any{"enabled": false}).Expect(t, 200)
	ten.Root.Post("/v1/webhook-deliveries/"+deliveryID+"/redeliver", nil).ExpectError(t, 409, "INVALID_STATE")
	ten.Root.Do("DELETE", "/v1/webhook-endpoints/"+epID, nil).Expect(t, 200)
	ten.Root.Get("/v1/webhook-endpoints/"+epID).ExpectError(t, 404, "WEBHOOK_ENDPOINT_NOT_FOUND")
}

func TestWebhooks_Validation(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	for _, body := range []map[string]any{
		{"url": "ftp://example.com/hook"},
		{"url": "not a url"},
		{"url": "https://user:pw@example.com/hook"},
		{"url": "https://example.com/hook", "events": []string{"Not A Type"}},
		// A port no connection can use: every delivery would fail.
		{"url": "http://127.0.0.1:99999/hook"},
		{"url": "http://127.0.0.1:0/hook"},
	} {
		ten.Root.Post("/v1/webhook-endpoints", body).ExpectError(t, 400, "VALIDATION_FAILED")
	}
	if n := ten.Root.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)["total"]; n != float64(0) {
		t.Fatalf("refused bodies created %v endpoints", n)
	}
	// keys:manage is required.
	reader := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "reader", "scopes": []string{"wallets:read"}}))
	reader.Get("/v1/events").ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	reader.Post("/v1/webhook-endpoints", map[string]any{"url": "https://example.com"}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
}

// TestWebhooks_LiveRefusesInternalAddresses: in LIVE an endpoint may not point at loopback,
// private or link-local addresses, by literal or by a name that resolves to one (SSRF).
func TestWebhooks_LiveRefusesInternalAddresses(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	rcv := harness.NewWebhookReceiver(t, 0)
	live := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "live", "scopes": []string{"*"}, "environment": "live"}))
	for _, url := range []string{rcv.URL(), strings.Replace(rcv.URL(), "127.0.0.1", "localhost", 1), "http://10.0.0.7/hook",
		"http://169.254.169.254/latest/meta-data", "http://[::1]/hook", "http://192.168.1.1/hook",
		// Other spellings of loopback, by the parsed address: 6to4, IPv4-compatible, NAT64, "this network".
		"http://[2002:7f00:1::1]/", "http://[::127.0.0.1]/", "http://[64:ff9b:1::7f00:1]/", "http://0.0.0.1/",
		"http://[::ffff:127.0.0.1]/", "http://[64:ff9b::a00:1]/"} {
		e := live.Post("/v1/webhook-endpoints", map[string]any{"url": url}).ExpectError(t, 400, "VALIDATION_FAILED")
		if !strings.Contains(strings.ToLower(e["message"].(string)+toString(e["details"])), "url") {
			t.Fatalf("%s: the error does not name url: %v", url, e)
		}
		live.Do("PATCH", "/v1/webhook-endpoints/we_x", map[string]any{"url": url}).ExpectError(t, 400, "VALIDATION_FAILED")
	}
	if n := live.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)["total"]; n != float64(0) {
		t.Fatalf("LIVE endpoints created: %v", n)
	}
}

func TestWebhooks_OtherTenantAnswers404(t *testing.T) {
	t.Parallel()
	victim, other := env().NewTenant(t), env().NewTenant(t)
	rcv := harness.NewWebhookReceiver(t, 0)
	epID, _ := endpoint(t, victim.Root, rcv.URL(), "agent.suspended")
	suspendAgent(t, victim.Root)
	ev := rcv.Wait(t, 1)[0].Event
	ds := poll(t, func() map[string]any {
		return victim.Root.Get("/v1/webhook-endpoints/"+epID+"/deliveries").Expect(t, 200).JSON(t)
	},
		func(m map[string]any) bool { return len(m["deliveries"].([]any)) == 1 })
	deliveryID := ds["deliveries"].([]any)[0].(map[string]any)["id"].(string)

	other.Root.Get("/v1/webhook-endpoints/"+epID).ExpectError(t, 404, "WEBHOOK_ENDPOINT_NOT_FOUND")
	other.Root.Do("PATCH", "/v1/webhook-endpoints/"+epID, map[string]any{"enabled": false}).ExpectError(t, 404, "WEBHOOK_ENDPOINT_NOT_FOUND")
	other.Root.Do("DELETE", "/v1/webhook-endpoints/"+epID, nil).ExpectError(t, 404, "WEBHOOK_ENDPOINT_NOT_FOUND")
	other.Root.Get("/v1/webhook-endpoints/"+epID+"/deliveries").ExpectError(t, 404, "WEBHOOK_ENDPOINT_NOT_FOUND")
	other.Root.Post("/v1/webhook-deliveries/"+deliveryID+"/redeliver", nil).ExpectError(t, 404, "WEBHOOK_DELIVERY_NOT_FOUND")
	other.Root.Get("/v1/events/"+ev["id"].(string)).ExpectError(t, 404, "EVENT_NOT_FOUND")
	other.Root.Get("/v1/events/"+ev["id"].(string)+"/payload").ExpectError(t, 404, "EVENT_NOT_FOUND")
	if n := other.Root.Get("/v1/events").Expect(t, 200).JSON(t)["total"]; n != float64(0) {
		t.Fatalf("the other tenant lists %v events", n)
	}
	if n := other.Root.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)["total"]; n != float64(0) {
		t.Fatalf("the other tenant lists %v endpoints", n)
	}
}

// fixedFraction is the API's one timestamp form: UTC with exactly six fraction digits.
var fixedFraction = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`)

func toString(v any) string {
	if v == nil {
		return ""
	}
	if m, ok := v.(map[string]any); ok {
		var b strings.Builder
		for k := range m {
			b.WriteString(k)
		}
		if f, ok := m["fields"].(map[string]any); ok {
			for k := range f {
				b.WriteString(k)
			}
		}
		return b.String()
	}
	return ""
}
