package listen

import (
	"context"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/sdk/forward"
	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
	"github.com/corridorhq/corridor/test/harness"
)

// objectPath is the GET that reads the object a triggered event names: the object itself, or
// for the families read through their parent (a card's authorizations, a checkout's refunds,
// a treasury account's sweeps, the tenant's members) the list that holds it. list reports the
// second kind. A family missing here fails the test: a new family brings its way to be read.
func objectPath(t *testing.T, family string, data map[string]any) (path string, list bool) {
	t.Helper()
	id, _ := data["id"].(string)
	field := func(k string) string { v, _ := data[k].(string); return v }
	switch family {
	case "safe_payment", "payment":
		return "/v1/payments/" + id, false
	case "offramp_payment":
		return "/v1/offramp/payments/" + id, false
	case "claim":
		return "/v1/offramp/claims/" + id, false
	case "card":
		return "/v1/cards/" + id, false
	case "agent":
		return "/v1/agents/" + id, false
	case "invoice":
		return "/v1/invoices/" + id, false
	case "webhook_endpoint":
		return "/v1/webhook-endpoints/" + id, false
	case "twofactor":
		return "/v1/tenants/current", false
	case "card_authorization":
		return "/v1/cards/" + field("cardId") + "/authorizations", true
	case "refund":
		return "/v1/payments/" + field("payment_id") + "/refunds", true
	case "treasury_sweep":
		return "/v1/treasury/accounts/" + field("accountId") + "/sweeps", true
	case "member":
		return "/v1/tenants/members", true
	}
	t.Fatalf("%s: no way to read its object in this test", family)
	return "", false
}

// TestTrigger_EveryDocumentedType walks every documented type with `corridor trigger` (forward.
// Trigger) signed in as the owner (CORRIDOR_SESSION) on a fresh sandbox tenant that has made
// nothing: each answers 201 with an event of the type, recorded (GET /v1/events/{id}), about an
// object trigger found or made; GET on that object answers 200 with its id for the tenant, and
// another tenant is refused it (404) where it has a path of its own. An undocumented type
// (claim.redeemed) is refused 400 and makes nothing, and so is a twofactor.locked naming another
// tenant.
func TestTrigger_EveryDocumentedType(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	api, err := forward.NewAPI(env().BaseURL, "", ten.SessionToken)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := forward.Trigger(context.Background(), api, "claim.redeemed"); err == nil || !strings.Contains(err.Error(), "answered 400") {
		t.Fatalf("claim.redeemed: %v, want 400", err)
	}
	if got := ten.Root.Get("/v1/events").Expect(t, 200).JSON(t)["events"].([]any); len(got) != 0 {
		t.Fatalf("a refused type recorded or made something: %v", got)
	}
	walkTypes(t, ten, api, "")
	other := env().NewTenant(t)
	ten.Root.Post("/v1/sandbox/events", map[string]any{"type": "twofactor.locked", "resourceId": other.ID}).ExpectError(t, 400, "VALIDATION_FAILED")
}

// TestTrigger_EveryDocumentedTypeWithATestKey: with a TEST key instead of the owner's session,
// every documented type is triggered the same way on a fresh tenant but member.role_changed:
// inviting the member it would be about needs the member role's powers in LIVE too, which a
// TEST key does not hold (the grant rule), so it is refused 403 saying to use the owner's
// session, and no member is made.
func TestTrigger_EveryDocumentedTypeWithATestKey(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	api, err := forward.NewAPI(env().BaseURL, ten.RootKey, "")
	if err != nil {
		t.Fatal(err)
	}
	walkTypes(t, ten, api, "member.role_changed")
	_, err = forward.Trigger(context.Background(), api, "member.role_changed")
	if err == nil || !strings.Contains(err.Error(), "answered 403") || !strings.Contains(err.Error(), "session") {
		t.Fatalf("member.role_changed with a TEST key: %v, want 403 naming the owner's session", err)
	}
	if members := ten.Session.Get("/v1/tenants/members").Expect(t, 200).JSON(t)["members"].([]any); len(members) != 0 {
		t.Fatalf("a refused trigger made members: %v", members)
	}
}

// walkTypes triggers every documented type but skip through api for ten and checks each event
// is about an object of ten's that GET answers.
func walkTypes(t *testing.T, ten *harness.Tenant, api *corridor.ClientWithResponses, skip string) {
	t.Helper()
	other := env().NewTenant(t)
	for _, typ := range event.DocumentedTypes() {
		if typ == skip {
			continue
		}
		family, _, _ := strings.Cut(typ, ".")
		e, err := forward.Trigger(context.Background(), api, typ)
		if err != nil {
			t.Errorf("%s: %v", typ, err)
			continue
		}
		id, _ := e.Data["id"].(string)
		if e.Type != typ || id == "" || e.Data["sandboxTrigger"] != true {
			t.Errorf("%s: triggered %s about %v", typ, e.Type, e.Data)
			continue
		}
		if got := ten.Root.Get("/v1/events/"+e.Id).Expect(t, 200).JSON(t); got["type"] != typ {
			t.Errorf("%s: recorded as %v", typ, got)
		}
		path, list := objectPath(t, family, e.Data)
		client := ten.Root
		if family == "member" {
			client = ten.Session
		}
		if r := client.Get(path); r.Status != 200 || !strings.Contains(string(r.Body), `"`+id+`"`) {
			t.Errorf("%s: GET %s answered %d without %s: %s", typ, path, r.Status, id, r.Body)
		}
		if family == "twofactor" && (id != ten.ID || e.Data["subject"] != "tenant" || e.Data["lockedUntil"] == nil) {
			t.Errorf("%s: about %v, want the tenant %s with subject and lockedUntil as a real lock", typ, e.Data, ten.ID)
		}
		if !list && family != "twofactor" {
			other.Root.Get(path).Expect(t, 404)
		}
	}
}
