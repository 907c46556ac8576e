package console

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/tenancy"
	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/core/webhook"
)

// developerPages are the developers' pages: API keys, webhook endpoints and deliveries, events.
type developerPages struct{ *Console }

func (k developerPages) developerRoutes(r fiber.Router) {
	r.Get("/keys", k.keys)
	r.Post("/keys", k.createKey)
	r.Post("/keys/:id/revoke", k.revokeKey)
	r.Get("/webhooks", k.webhooks)
	r.Post("/webhooks", k.createWebhook)
	r.Get("/webhooks/:id", k.webhook)
	r.Post("/webhooks/:id/rotate", k.rotateWebhook)
	r.Post("/webhooks/:id/test", k.sendTestEvent)
	r.Post("/webhooks/:id/deliveries/:delivery/redeliver", k.redeliver)
	r.Post("/events/:id/deliveries/:delivery/redeliver", k.redeliverEvent)
	r.Get("/events", k.events)
}

// formValues are the values of a repeated form field (checkboxes).
func formValues(c *fiber.Ctx, name string) []string {
	var out []string
	for _, v := range c.Request().PostArgs().PeekMulti(name) {
		if s := strings.TrimSpace(string(v)); s != "" {
			out = append(out, s)
		}
	}
	if form, err := c.MultipartForm(); err == nil {
		out = append(out, form.Value[name]...)
	}
	return out
}

type keysData struct {
	Keys    []tenant.APIKey
	Page    *pager
	Scopes  []auth.Scope
	Created *flash
}

func (k developerPages) keys(c *fiber.Ctx) error {
	notice, created := k.takeSecretFlash(c, "key")
	page, pg := pageOf(c)
	keys, total, err := k.svc.Tenancy.ListKeys(c.UserContext(), principal(c), page)
	if err != nil {
		return k.fail(c, err)
	}
	pg.Total = total
	return k.render(c, fiber.StatusOK, "keys", "API keys", notice, keysData{Keys: keys, Page: pg, Scopes: auth.AllScopes, Created: created})
}

// createKey mints a key and shows its secret on this one response; the list never shows it.
func (k developerPages) createKey(c *fiber.Ctx) error {
	scopes := formValues(c, "scopes")
	in := tenancy.CreateKeyInput{Name: c.FormValue("name"), Scopes: scopes, ScopesSet: len(scopes) > 0}
	if days := strings.TrimSpace(c.FormValue("expiresInDays")); days != "" && days != "0" {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 || n > 3650 {
			return k.renderError(c, fiber.StatusUnprocessableEntity, "expiresInDays must be a whole number of days from 1 to 3650")
		}
		at := k.svc.Tenancy.Now().Add(time.Duration(n) * 24 * time.Hour).UTC()
		in.ExpiresAt = &at
	}
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		created, err := k.svc.Tenancy.CreateKey(ctx, principal(c), in)
		if err != nil {
			return outcome{}, err
		}
		return outcome{Location: Prefix + "/keys",
			First: flash{Kind: "key", ID: created.Key.ID, Label: created.Key.Name, Secret: created.Plaintext,
				Notice: "Key created. Copy the secret now: it is shown only once."},
			Again: flash{Kind: "key", ID: created.Key.ID, Label: created.Key.Name,
				Notice: "This form was already submitted: the key \u201c" + created.Key.Name + "\u201d (" + created.Key.PubID +
					") was created then, once. Its secret was shown on that first answer only and is not shown again: if you did not copy it, revoke the key and create another."},
		}, nil
	})
}

func (k developerPages) revokeKey(c *fiber.Ctx) error {
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		if _, err := k.svc.Tenancy.RevokeKey(ctx, principal(c), c.Params("id")); err != nil {
			return outcome{}, err
		}
		return outcome{Location: Prefix + "/keys",
			First: flash{Kind: "key", Notice: "Key revoked."},
			Again: flash{Kind: "key", Notice: "This form was already submitted: the key was revoked then."},
		}, nil
	})
}

// EventFamily is one family's documented types as the endpoint form offers them.
type EventFamily struct {
	Kind  string
	Types []string
}

// EventFamilies are exactly the documented event types, by family: the endpoint form offers
// these and no other (it once offered types the service never sends, and missed the checkout's).
func EventFamilies() []EventFamily {
	out := make([]EventFamily, 0, len(event.Families))
	for _, f := range event.Families {
		ef := EventFamily{Kind: f.Kind}
		for _, s := range f.Statuses {
			ef.Types = append(ef.Types, f.Kind+"."+s)
		}
		out = append(out, ef)
	}
	return out
}

type webhooksData struct {
	Endpoints []webhook.Endpoint
	Page      *pager
	Families  []EventFamily
	Created   *flash
}

func (k developerPages) webhooks(c *fiber.Ctx) error {
	notice, created := k.takeSecretFlash(c, "endpoint")
	page, pg := pageOf(c)
	eps, total, err := k.svc.Webhooks.ListEndpoints(c.UserContext(), principal(c), page)
	if err != nil {
		return k.fail(c, err)
	}
	pg.Total = total
	return k.render(c, fiber.StatusOK, "webhooks", "Webhook endpoints", notice, webhooksData{Endpoints: eps, Page: pg, Families: EventFamilies(), Created: created})
}

func (k developerPages) createWebhook(c *fiber.Ctx) error {
	events := formValues(c, "events")
	for _, t := range events {
		if _, ok := event.Documented(t); !ok && t != "*" {
			return k.renderError(c, fiber.StatusUnprocessableEntity, "“"+t+"” is not a documented event type: choose among the listed ones")
		}
	}
	if len(events) == 0 {
		events = []string{"*"}
	}
	in := webhooks.EndpointInput{URL: strings.TrimSpace(c.FormValue("url")), Events: events}
	// The URL's host is resolved while preparing, outside the form's unit of work.
	prepared, err := k.svc.Webhooks.PrepareEndpoint(c.UserContext(), principal(c), in)
	if err != nil {
		return k.fail(c, err)
	}
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		ep, secret, err := k.svc.Webhooks.AddEndpoint(ctx, principal(c), prepared)
		if err != nil {
			return outcome{}, err
		}
		return outcome{Location: Prefix + "/webhooks",
			First: flash{Kind: "endpoint", ID: ep.ID, Label: ep.URL, Secret: secret,
				Notice: "Endpoint added. Copy its signing secret now: it is shown only once."},
			Again: flash{Kind: "endpoint", ID: ep.ID, Label: ep.URL,
				Notice: "This form was already submitted: the endpoint " + ep.URL + " (" + ep.ID +
					") was added then, once. Its signing secret was shown on that first answer only and is not shown again: if you did not copy it, rotate it on the endpoint's page."},
		}, nil
	})
}

type webhookData struct {
	Endpoint   webhook.Endpoint
	Deliveries []webhooks.DeliveryView
	Page       *pager
	Secret     string
	// TestTypes are the documented types the endpoint receives, offered by "Send test event"
	// (TEST only); Sandbox says the page is in TEST.
	TestTypes []string
	Sandbox   bool
}

func (k developerPages) webhook(c *fiber.Ctx) error {
	id, notice, secret := c.Params("id"), "", ""
	if f, ok := k.takeFlash(c, "webhook"); ok && f.ID == id {
		notice, secret = f.Notice, f.Secret
	}
	ep, err := k.svc.Webhooks.GetEndpoint(c.UserContext(), principal(c), id)
	if err != nil {
		return k.fail(c, err)
	}
	page, pg := pageOf(c)
	ds, total, err := k.svc.Webhooks.ListDeliveries(c.UserContext(), principal(c), id, page)
	if err != nil {
		return k.fail(c, err)
	}
	pg.Total = total
	return k.render(c, fiber.StatusOK, "webhook", "Endpoint "+ep.ID, notice, webhookData{Endpoint: ep, Deliveries: ds, Page: pg, Secret: secret,
		TestTypes: testTypes(ep), Sandbox: principal(c).Environment == core.EnvTest})
}

// testTypes are the documented types an endpoint subscribes to (every one for "*" or none).
func testTypes(ep webhook.Endpoint) []string {
	var out []string
	for _, t := range event.DocumentedTypes() {
		if ep.Wants(t) {
			out = append(out, t)
		}
	}
	return out
}

// sendTestEvent records an event of the chosen type about the tenant's newest object of its
// family, as `corridor trigger` does (TEST only: the use case refuses LIVE, and refuses a
// family the tenant has no object of, saying how to make one), so it is delivered, signed, to
// this endpoint and every other one subscribed to the type; its delivery shows in the list it
// comes back to.
func (k developerPages) sendTestEvent(c *fiber.Ctx) error {
	id, typ := c.Params("id"), strings.TrimSpace(c.FormValue("type"))
	if _, err := k.svc.Webhooks.GetEndpoint(c.UserContext(), principal(c), id); err != nil {
		return k.fail(c, err)
	}
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		e, err := k.svc.Webhooks.TriggerEvent(ctx, principal(c), typ, "")
		if err != nil {
			return outcome{}, err
		}
		return outcome{Location: Prefix + "/webhooks/" + id,
			First: flash{Kind: "webhook", ID: id, Notice: "Test event " + e.ID + " (" + e.Type + ") sent: its delivery shows below in a moment."},
			Again: flash{Kind: "webhook", ID: id, Notice: "This form was already submitted: the test event was sent then, once."},
		}, nil
	})
}

func (k developerPages) rotateWebhook(c *fiber.Ctx) error {
	id := c.Params("id")
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		_, secret, err := k.svc.Webhooks.UpdateEndpoint(ctx, principal(c), id, webhooks.EndpointPatch{RotateSecret: true})
		if err != nil {
			return outcome{}, err
		}
		return outcome{Location: Prefix + "/webhooks/" + id,
			First: flash{Kind: "webhook", ID: id, Secret: secret,
				Notice: "Secret rotated. Copy the new signing secret now: it is shown only once."},
			Again: flash{Kind: "webhook", ID: id,
				Notice: "This form was already submitted: the secret was rotated then, once. The new secret was shown on that first answer only and is not shown again: if you did not copy it, rotate again."},
		}, nil
	})
}

func (k developerPages) redeliver(c *fiber.Ctx) error {
	id := c.Params("id")
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		if _, err := k.svc.Webhooks.Redeliver(ctx, principal(c), c.Params("delivery")); err != nil {
			return outcome{}, err
		}
		return outcome{Location: Prefix + "/webhooks/" + id,
			First: flash{Kind: "webhook", ID: id, Notice: "Redelivery queued."},
			Again: flash{Kind: "webhook", ID: id, Notice: "This form was already submitted: the delivery was redelivered then, once."},
		}, nil
	})
}

// redeliverEvent redelivers one of an event's deliveries from the event's page, and comes back
// to it (the page of the delivery's event).
func (k developerPages) redeliverEvent(c *fiber.Ctx) error {
	id := c.Params("id")
	return k.runOnce(c, func(ctx context.Context) (outcome, error) {
		d, err := k.svc.Webhooks.Redeliver(ctx, principal(c), c.Params("delivery"))
		if err != nil {
			return outcome{}, err
		}
		// The page shown is the delivery's own event's.
		id = d.EventID
		return outcome{Location: Prefix + "/events/" + id,
			First: flash{Kind: "event", ID: id, Notice: "Redelivery queued to " + d.EndpointID + "."},
			Again: flash{Kind: "event", ID: id, Notice: "This form was already submitted: the delivery was redelivered then, once."},
		}, nil
	})
}

type eventsData struct {
	Events []event.Event
	Page   *pager
	Type   string
}

func (k developerPages) events(c *fiber.Ctx) error {
	page, pg := pageOf(c)
	q := webhooks.EventQuery{Type: strings.TrimSpace(c.Query("type"))}
	evs, total, err := k.svc.Webhooks.ListEvents(c.UserContext(), principal(c), q, page)
	if err != nil {
		return k.fail(c, err)
	}
	pg.Total = total
	return k.render(c, fiber.StatusOK, "events", "Events", "", eventsData{Events: evs, Page: pg, Type: q.Type})
}
