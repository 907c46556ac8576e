// Package listen holds the black-box test of local webhook development (`corridor listen`,
// `corridor trigger`, package sdk/go/forward) against a running service.
package listen

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/checkouts"
	"github.com/corridorhq/corridor/sdk/forward"
	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// The chain is there so every capability is, and trigger's fixtures can be made (wallets and
// treasury Safes deploy, a checkout is paid and refunded on chain); a checkout counts its payment
// at one confirmation, since the simulated chain seals blocks only for transactions; local
// endpoints are allowed in TEST, as on a developer's machine.
func TestMain(m *testing.M) {
	harness.MainWithOptions(m, harness.Options{Chain: true, Modify: func(c *wiring.Config) {
		c.Webhooks.AllowPrivateTest = true
		c.Checkout = checkouts.Config{Confirmations: 1, PollInterval: 200 * time.Millisecond}
	}})
}

var env = harness.Shared

// TestListen_TriggeredEventReachesLocalReceiver/signed with the printed secret: an event
// triggered in the sandbox reaches a local receiver through the listener, signed with the
// secret the listener printed, with the delivery's headers and body; the listener prints the
// receiver's status; events recorded before it started are not forwarded.
func TestListen_TriggeredEventReachesLocalReceiver(t *testing.T) {
	t.Parallel()
	t.Run("signed with the printed secret", func(t *testing.T) {
		t.Parallel()
		ten := env().NewTenant(t)
		api, err := forward.NewAPI(env().BaseURL, ten.RootKey, "")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		before, err := forward.Trigger(ctx, api, "agent.created")
		// The event the listener forwards is about this endpoint (registering one records no
		// event, so nothing else reaches the listener).
		endpoint := ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": "http://127.0.0.1:9/hook"}).Expect(t, 201).JSON(t)["id"].(string)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		receiver := harness.NewWebhookReceiver(t, 0)
		out := &harness.SyncBuffer{}
		l, err := forward.NewListener(forward.Options{API: api, ForwardTo: receiver.URL() + "/hooks", Interval: 100 * time.Millisecond, Out: out})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- l.Run(ctx) }()
		defer func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("the listener stopped with %v", err)
			}
		}()
		secret := harness.Until(t, "the secret printed", func() string {
			m := regexp.MustCompile(`Webhook signing secret: (whsec_\S+)`).FindStringSubmatch(out.String())
			if m == nil {
				return ""
			}
			return m[1]
		}, func(s string) bool { return s != "" })

		triggered, err := forward.Trigger(ctx, api, "webhook_endpoint.disabled")
		if err != nil {
			t.Fatal(err)
		}
		got := receiver.Wait(t, 1)[0]
		if !harness.VerifyWebhookSignature(secret, got.Signature, got.Body) {
			t.Fatalf("the signature %q does not verify with the printed secret", got.Signature)
		}
		payload := got.Event
		data, _ := payload["data"].(map[string]any)
		resourceID, _ := data["id"].(string)
		if payload["id"] != triggered.Id || payload["type"] != "webhook_endpoint.disabled" || payload["event"] != "webhook_endpoint.disabled" ||
			data["status"] != "DISABLED" || data["sandboxTrigger"] != true || resourceID != endpoint {
			t.Fatalf("forwarded %s", got.Body)
		}
		harness.Until(t, "the status printed", out.String, func(s string) bool { return strings.Contains(s, triggered.Id+"  → 200") })
		for _, d := range receiver.Wait(t, 1) {
			if d.Event["id"] == before.Id {
				t.Fatalf("an event recorded before the listener started was forwarded")
			}
		}
	})
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestTrigger_Refusals: an unknown family, or an undocumented type of a known family
// (claim.redeemed, invoice.paid), is 400 naming type and records nothing; a LIVE key is 403
// SANDBOX_ONLY.
func TestTrigger_Refusals(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	for _, typ := range []string{"spaceship.launched", "claim.redeemed", "invoice.paid"} {
		e := ten.Root.Post("/v1/sandbox/events", map[string]any{"type": typ}).ExpectError(t, 400, "VALIDATION_FAILED")
		if e["details"].(map[string]any)["fields"].(map[string]any)["type"] == nil {
			t.Fatalf("%s: details %v", typ, e)
		}
	}
	api, err := forward.NewAPI(env().BaseURL, ten.RootKey, "")
	if err != nil {
		t.Fatal(err)
	}
	take := 10
	if resp, err := api.ListEventsWithResponse(context.Background(), &corridor.ListEventsParams{Take: &take}); err != nil || resp.JSON200 == nil || len(resp.JSON200.Events) != 0 {
		t.Fatalf("refused triggers recorded events: %v %v", err, resp.JSON200)
	}
	live := env().NewKey(t, ten.Session.With("X-Corridor-Environment", "live"), map[string]any{"name": "live", "scopes": []string{"*"}})
	env().Client(t).WithKey(live).Post("/v1/sandbox/events", map[string]any{"type": "agent.created"}).ExpectError(t, 403, "SANDBOX_ONLY")
}

// TestTrigger_StatusMatchesRealEvents: a triggered event's data.status is what a real event of
// its type carries: lower case for the checkout families (payment.completed), the state the
// type names for most (agent.suspended: SUSPENDED), and for the card and agent families the
// resource's status the event leaves (card.frozen: inactive, agent.reactivated: ACTIVE). Each
// card and agent type is compared with a real event of it, made through the API.
func TestTrigger_StatusMatchesRealEvents(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/payments", map[string]any{"amount": 10, "currency": "USD", "cryptocurrency": "USDC", "description": "Order 7"}).Expect(t, 201)
	e := ten.Root.Post("/v1/sandbox/events", map[string]any{"type": "payment.completed"}).Expect(t, 201).JSON(t)
	if data, _ := e["data"].(map[string]any); data["status"] != "completed" {
		t.Errorf("payment.completed: data.status %v, want completed (%v)", data["status"], e)
	}

	// Real events of every card and agent type.
	agentID := ten.Root.Post("/v1/agents", map[string]any{"name": "status spelling"}).Expect(t, 201).JSON(t)["id"].(string)
	ten.Root.Do("PUT", "/v1/agents/"+agentID+"/limits", map[string]any{"dailyUsd": "10"}).Expect(t, 200)
	ten.Root.Post("/v1/agents/"+agentID+"/suspend", nil).Expect(t, 200)
	ten.Root.Post("/v1/agents/"+agentID+"/reactivate", nil).Expect(t, 200)
	api, err := forward.NewAPI(env().BaseURL, ten.RootKey, "")
	if err != nil {
		t.Fatal(err)
	}
	issued, err := forward.Trigger(context.Background(), api, "card.issued") // issues a real card first
	if err != nil {
		t.Fatal(err)
	}
	cardID, _ := issued.Data["id"].(string)
	ten.Root.Post("/v1/cards/"+cardID+"/freeze", nil).Expect(t, 200)
	ten.Root.Do("PUT", "/v1/cards/"+cardID+"/limits", map[string]any{"dailyUsd": "10"}).Expect(t, 200) // while frozen
	ten.Root.Post("/v1/cards/"+cardID+"/unfreeze", nil).Expect(t, 200)

	for _, typ := range []string{"agent.created", "agent.limits_updated", "agent.suspended", "agent.reactivated",
		"card.issued", "card.frozen", "card.limits_updated", "card.unfrozen"} {
		var real map[string]any
		for _, e := range ten.Root.Get("/v1/events?type="+typ).Expect(t, 200).JSON(t)["events"].([]any) {
			if data := e.(map[string]any)["data"].(map[string]any); data["sandboxTrigger"] != true {
				real = data
			}
		}
		if real == nil {
			t.Fatalf("no real %s event", typ)
		}
		// The trigger is about the same object, which stands as the last real event left it.
		triggered := ten.Root.Post("/v1/sandbox/events", map[string]any{"type": typ, "resourceId": real["id"]}).Expect(t, 201).JSON(t)
		got := triggered["data"].(map[string]any)["status"]
		switch typ {
		case "card.limits_updated", "agent.limits_updated":
			// A change event carries the status the resource has: the card is active again now.
			if want := map[string]any{"card.limits_updated": "active", "agent.limits_updated": "ACTIVE"}[typ]; got != want {
				t.Errorf("%s: triggered data.status %v, want the resource's %v", typ, got, want)
			}
			if typ == "card.limits_updated" && real["status"] != "inactive" {
				t.Errorf("%s while frozen: real data.status %v, want inactive", typ, real["status"])
			}
		default:
			if got != real["status"] {
				t.Errorf("%s: triggered data.status %v, a real event's %v", typ, got, real["status"])
			}
		}
	}
}

// TestTrigger_EventsAreAboutRealObjects: an agent.* trigger creates the agent it is about (GET
// answers 200); a trigger without a fixture is about the tenant's newest object of the family,
// or the one named by resourceId; naming another tenant's object is 400 and records nothing.
func TestTrigger_EventsAreAboutRealObjects(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	api, err := forward.NewAPI(env().BaseURL, ten.RootKey, "")
	if err != nil {
		t.Fatal(err)
	}
	e, err := forward.Trigger(context.Background(), api, "agent.suspended")
	if err != nil {
		t.Fatal(err)
	}
	id, _ := e.Data["id"].(string)
	if got := ten.Root.Get("/v1/agents/"+id).Expect(t, 200).JSON(t); got["id"] != id || e.Data["status"] != "SUSPENDED" {
		t.Fatalf("triggered %v about %v", e.Data, got)
	}
	card, err := forward.Trigger(context.Background(), api, "card.frozen")
	if err != nil {
		t.Fatal(err)
	}
	cardID, _ := card.Data["id"].(string)
	ten.Root.Get("/v1/cards/"+cardID).Expect(t, 200)
	auth, err := forward.Trigger(context.Background(), api, "card_authorization.captured")
	if err != nil {
		t.Fatal(err)
	}
	authCard, _ := auth.Data["cardId"].(string)
	if list := ten.Root.Get("/v1/cards/"+authCard+"/authorizations").Expect(t, 200).Body; !strings.Contains(string(list), auth.Data["id"].(string)) {
		t.Fatalf("the triggered authorization %v is not among its card's: %s", auth.Data, list)
	}
	endpoint := ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": "http://127.0.0.1:9/hook"}).Expect(t, 201).JSON(t)["id"].(string)
	if got := ten.Root.Post("/v1/sandbox/events", map[string]any{"type": "webhook_endpoint.disabled"}).Expect(t, 201).JSON(t); got["data"].(map[string]any)["id"] != endpoint {
		t.Fatalf("webhook_endpoint.disabled about %v, want %s", got["data"], endpoint)
	}
	ten.Root.Get("/v1/webhook-endpoints/"+endpoint).Expect(t, 200)
	older := ten.Root.Post("/v1/agents", map[string]any{"name": "older"}).Expect(t, 201).JSON(t)["id"].(string)
	newest := ten.Root.Post("/v1/agents", map[string]any{"name": "newest"}).Expect(t, 201).JSON(t)["id"].(string)
	if got := ten.Root.Post("/v1/sandbox/events", map[string]any{"type": "agent.reactivated"}).Expect(t, 201).JSON(t); got["data"].(map[string]any)["id"] != newest {
		t.Fatalf("without resourceId: %v, want the newest agent %s", got, newest)
	}
	if got := ten.Root.Post("/v1/sandbox/events", map[string]any{"type": "agent.limits_updated", "resourceId": older}).Expect(t, 201).JSON(t); got["data"].(map[string]any)["id"] != older ||
		got["data"].(map[string]any)["name"] != "older" {
		t.Fatalf("with resourceId: %v, want %s with its data", got, older)
	}
	theirs := other.Root.Post("/v1/agents", map[string]any{"name": "theirs"}).Expect(t, 201).JSON(t)["id"].(string)
	before := ten.Root.Get("/v1/events").Expect(t, 200).JSON(t)["total"]
	ten.Root.Post("/v1/sandbox/events", map[string]any{"type": "agent.suspended", "resourceId": theirs}).ExpectError(t, 400, "VALIDATION_FAILED")
	if after := ten.Root.Get("/v1/events").Expect(t, 200).JSON(t)["total"]; after != before {
		t.Fatalf("a refused trigger recorded an event: %v → %v", before, after)
	}
}
