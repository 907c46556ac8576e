package listen

import (
	"context"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/sdk/forward"
	"github.com/corridorhq/corridor/test/harness"
)

// objectAnswers reports whether GET on the object a triggered event names answers 200: the
// object itself, or for the families read through a list (authorizations of a card, members of
// the tenant) the list that holds it.
func objectAnswers(t *testing.T, ten *harness.Tenant, family string, data map[string]any) bool {
	t.Helper()
	id, _ := data["id"].(string)
	paths := map[string]string{"agent": "/v1/agents/" + id, "card": "/v1/cards/" + id, "webhook_endpoint": "/v1/webhook-endpoints/" + id,
		"payment": "/v1/payments/" + id}
	if path, ok := paths[family]; ok {
		return ten.Root.Get(path).Status == 200
	}
	lists := map[string]string{"member": "/v1/tenants/members"}
	if card, _ := data["cardId"].(string); family == "card_authorization" {
		lists[family] = "/v1/cards/" + card + "/authorizations"
	}
	if list, ok := lists[family]; ok {
		r := ten.Session.Get(list)
		return r.Status == 200 && strings.Contains(string(r.Body), id)
	}
	t.Fatalf("%s: no way to read its object in this test", family)
	return false
}

// TestTrigger_EveryDocumentedType walks every documented type with `corridor trigger` (forward.
// Trigger) for a tenant that has an endpoint, a member and a checkout: each is either an event
// about a real object (GET answers 200) or refused with a reason, and nothing else. The families
// whose objects trigger creates itself (agent, card, card_authorization) and those the tenant
// has are real; the refusals say how to make the object, or why the type names none.
func TestTrigger_EveryDocumentedType(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": "http://127.0.0.1:9/hook"}).Expect(t, 201)
	ten.Session.Post("/v1/tenants/members", map[string]any{"email": "trigger-member@example.com", "role": "MEMBER"}).Expect(t, 201)
	ten.Root.Post("/v1/payments", map[string]any{"amount": 10, "currency": "USD", "cryptocurrency": "USDC", "description": "Order 9"}).Expect(t, 201)
	api, err := forward.NewAPI(env().BaseURL, ten.RootKey, "")
	if err != nil {
		t.Fatal(err)
	}
	mustBeReal := map[string]bool{"agent": true, "card": true, "card_authorization": true, "webhook_endpoint": true, "member": true, "payment": true}
	real, refused := 0, 0
	for _, typ := range event.DocumentedTypes() {
		family, _, _ := strings.Cut(typ, ".")
		e, err := forward.Trigger(context.Background(), api, typ)
		if err != nil {
			refused++
			msg := err.Error()
			if mustBeReal[family] {
				t.Errorf("%s was refused: %v", typ, msg)
			} else if !strings.Contains(msg, "409") && !strings.Contains(msg, "400") || !strings.Contains(msg, "first") && !strings.Contains(msg, "cannot be triggered") &&
				!strings.Contains(msg, "POST /v1/") {
				t.Errorf("%s refused without a reason: %v", typ, msg)
			}
			continue
		}
		real++
		if e.Type != typ || !objectAnswers(t, ten, family, e.Data) {
			t.Errorf("%s: an event about %v, which GET does not answer", typ, e.Data)
		}
	}
	if real+refused != len(event.DocumentedTypes()) || real == 0 {
		t.Fatalf("%d real, %d refused of %d", real, refused, len(event.DocumentedTypes()))
	}
	t.Logf("%d documented types triggered about real objects, %d refused with a reason", real, refused)
}
