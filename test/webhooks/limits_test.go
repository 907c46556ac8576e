package webhooks

import (
	"fmt"
	"sort"
	"sync"
	"testing"
)

// TestWebhooks_EndpointCapUnderParallelRequests: 24 parallel registrations on a fresh tenant
// create exactly 16 endpoints (the cap); the others answer 409 INVALID_STATE.
func TestWebhooks_EndpointCapUnderParallelRequests(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	var wg sync.WaitGroup
	statuses := make([]int, 24)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": fmt.Sprintf("http://127.0.0.1:9/hook/%d", i),
				"events": []string{"nothing.subscribed"}}).Status
		}()
	}
	wg.Wait()
	created, refused := 0, 0
	for _, s := range statuses {
		switch s {
		case 201:
			created++
		case 409:
			refused++
		default:
			t.Fatalf("unexpected status %d", s)
		}
	}
	if created != 16 || refused != 8 {
		t.Fatalf("created %d, refused %d; want 16 and 8", created, refused)
	}
	if n := ten.Root.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)["total"]; n != float64(16) {
		t.Fatalf("listed %v endpoints", n)
	}
}

// TestWebhooks_RegistrationIsIdempotent: a retry with the same Idempotency-Key replays the
// first answer (one endpoint) and does not show the secret again.
func TestWebhooks_RegistrationIsIdempotent(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	c := ten.Root.With("Idempotency-Key", "endpoint-once")
	body := map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"nothing.subscribed"}}
	first := c.Post("/v1/webhook-endpoints", body).Expect(t, 201).JSON(t)
	replay := c.Post("/v1/webhook-endpoints", body).Expect(t, 201).JSON(t)
	if replay["id"] != first["id"] || first["secret"] == nil || replay["secret"] != nil {
		t.Fatalf("first %v, replay %v", first, replay)
	}
	if n := ten.Root.Get("/v1/webhook-endpoints").Expect(t, 200).JSON(t)["total"]; n != float64(1) {
		t.Fatalf("listed %v endpoints", n)
	}
}

// TestWebhooks_SubscribesToEveryDocumentedType: an endpoint that lists every event type the
// OpenAPI document's webhooks name (docs/webhooks.md: "a subscription to a type listed here is
// never refused") is registered with all of them, and a PATCH to the same list is accepted.
func TestWebhooks_SubscribesToEveryDocumentedType(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	doc := ten.Root.Get("/v1/openapi.json").Expect(t, 200).JSON(t)
	hooks, _ := doc["webhooks"].(map[string]any)
	types := make([]string, 0, len(hooks))
	for typ := range hooks {
		types = append(types, typ)
	}
	sort.Strings(types)
	if len(types) < 60 {
		t.Fatalf("the document lists %d event types", len(types))
	}
	ep := ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": "http://127.0.0.1:9/hook", "events": types}).Expect(t, 201).JSON(t)
	if got, _ := ep["events"].([]any); len(got) != len(types) {
		t.Fatalf("registered %d of the %d documented types: %v", len(got), len(types), ep)
	}
	patched := ten.Root.Do("PATCH", "/v1/webhook-endpoints/"+ep["id"].(string), map[string]any{"events": types}).Expect(t, 200).JSON(t)
	if got, _ := patched["events"].([]any); len(got) != len(types) {
		t.Fatalf("patched to %d of the %d documented types: %v", len(got), len(types), patched)
	}
}

// TestEvents_TypeFilterIsATypeOrAFamily: GET /v1/events?type= takes one type (agent.created)
// or a family (agent.*); a bare family name without ".*" (agent), which is neither and would
// match nothing, answers 400 VALIDATION_FAILED naming type instead of an empty list.
func TestEvents_TypeFilterIsATypeOrAFamily(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/agents", map[string]any{"name": "filter-bot"}).Expect(t, 201)
	poll(t, func() map[string]any { return ten.Root.Get("/v1/events?type=agent.*").Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["total"] == float64(1) })
	if n := ten.Root.Get("/v1/events?type=agent.created").Expect(t, 200).JSON(t)["total"]; n != float64(1) {
		t.Fatalf("type=agent.created listed %v events", n)
	}
	for _, q := range []string{"agent", "agent_", "agent*", "*"} {
		e := ten.Root.Get("/v1/events?type="+q).ExpectError(t, 400, "VALIDATION_FAILED")
		if fields, _ := e["details"].(map[string]any)["fields"].(map[string]any); fields["type"] == nil {
			t.Fatalf("type=%s: the refusal does not name type: %v", q, e)
		}
	}
}
