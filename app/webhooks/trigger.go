package webhooks

import (
	"context"
	"sort"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/ports"
)

// sampleResources are the event families a sandbox trigger can emit, with the id prefix of the
// resource each announces and a few fields its real events carry (docs/webhooks.md), so a
// partner's handler sees the shape it will see in production. lowerStatus marks the checkout
// families (payment, refund), whose real events carry their status in lower case
// ("completed", "processed") like the rest of that surface.
var sampleResources = map[string]struct {
	prefix      string
	data        map[string]any
	lowerStatus bool
}{
	"safe_payment":       {core.PrefixPayment, map[string]any{"amount": "12.5", "walletId": "wal_sandbox"}, false},
	"offramp_payment":    {core.PrefixOffRamp, map[string]any{"amount": "25"}, false},
	"claim":              {core.PrefixClaim, map[string]any{"amount": "25", "paymentId": "ofp_sandbox"}, false},
	"card":               {core.PrefixCard, map[string]any{"walletId": "wal_sandbox", "last4": "4242", "funding": "SAFE"}, false},
	"card_authorization": {core.PrefixCardAuth, map[string]any{"amount": "9.99", "cardId": "card_sandbox", "merchantName": "Sandbox Coffee", "mcc": "5814"}, false},
	"agent":              {core.PrefixAgent, map[string]any{"name": "sandbox agent"}, false},
	"invoice":            {"inv", map[string]any{"amount": "100"}, false},
	"treasury_sweep":     {core.PrefixSweep, map[string]any{"amount": "50", "paymentId": "pay_sandbox"}, false},
	"payment":            {"chk", map[string]any{"amount": "19.99", "currency": "USD"}, true},
	"refund":             {"chk", map[string]any{"amount": "19.99", "paymentId": "chk_sandbox"}, true},
	"webhook_endpoint":   {core.PrefixWebhookEndpoint, map[string]any{"url": "https://partner.example.com/webhooks"}, false},
}

// TriggerFamilies lists the event families TriggerEvent emits, sorted.
func TriggerFamilies() []string {
	out := make([]string, 0, len(sampleResources))
	for k := range sampleResources {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// maxResourceScan bounds the events read to find a real object of a family.
const maxResourceScan = 100

// TriggerEvent records, in TEST only, an event of typ (`corridor trigger`): it goes through the
// same dispatch as every event, to the caller's endpoints and GET /v1/events, so a partner
// exercises its handler without making the state change happen. The event is about a real
// object of the caller's when there is one: resourceID when given (an object of that family the
// caller's events name, else 400), otherwise the newest such object; only a tenant with no
// object of the family gets a sample id. Its data is the object's latest, with the status the
// type names and sandboxTrigger: true; it is recorded every time it is asked for.
func (s *Service) TriggerEvent(ctx context.Context, p auth.Principal, typ, resourceID string) (event.Event, error) {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return event.Event{}, err
	}
	if err := kernel.RequireSandbox(p, "triggered events are sandbox only: use a TEST key"); err != nil {
		return event.Event{}, err
	}
	typ = strings.TrimSpace(typ)
	kind, state, _ := strings.Cut(typ, ".")
	sample, ok := sampleResources[kind]
	if _, documented := event.Documented(typ); !documented || !ok {
		return event.Event{}, core.Invalid("type", "a documented event type (docs/webhooks.md; the OpenAPI document's webhooks list them all), such as safe_payment.completed; families: "+strings.Join(TriggerFamilies(), ", "))
	}
	status := strings.ToUpper(state)
	if sample.lowerStatus {
		status = state
	}
	var e event.Event
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		id, data, err := realResource(ctx, tx, p, kind, strings.TrimSpace(resourceID))
		if err != nil {
			return err
		}
		if id == "" {
			id, data = core.NewID(sample.prefix), sample.data
		}
		merged := map[string]any{}
		for k, v := range data {
			merged[k] = v
		}
		merged["status"], merged["sandboxTrigger"] = status, true
		e = event.New(p.TenantID, p.Environment, typ, id, merged, s.clock.Now())
		e.Repeatable = true
		_, err = tx.Events().RecordEvent(ctx, e)
		return err
	})
	return e, err
}

// realResource is the caller's object of the family kind that a trigger is about, read from the
// events its real changes recorded (each object records one when it is created): the one named,
// or the newest. An empty id with no error: the caller has none.
func realResource(ctx context.Context, tx ports.Tx, p auth.Principal, kind, named string) (string, map[string]any, error) {
	if kind == "webhook_endpoint" {
		return realEndpoint(ctx, tx, p, named)
	}
	events, _, err := tx.Events().ListEvents(ctx, ports.EventFilter{TenantID: p.TenantID, Environment: p.Environment,
		Type: kind + ".*", ResourceID: named}, ports.Page{Take: maxResourceScan})
	if err != nil {
		return "", nil, err
	}
	for _, ev := range events {
		if triggered, _ := ev.Data["sandboxTrigger"].(bool); !triggered {
			return ev.ResourceID, ev.Data, nil
		}
	}
	if named != "" {
		return "", nil, core.Invalid("resourceId", "names no "+kind+" of yours in this environment")
	}
	return "", nil, nil
}

// realEndpoint is the named endpoint of the caller's, or its first listed: an endpoint records
// no event when it is registered, so the endpoints themselves are read.
func realEndpoint(ctx context.Context, tx ports.Tx, p auth.Principal, named string) (string, map[string]any, error) {
	if named != "" {
		ep, err := tx.Events().FindEndpoint(ctx, p.TenantID, p.Environment, named)
		if err != nil {
			return "", nil, core.Invalid("resourceId", "names no webhook_endpoint of yours in this environment")
		}
		return ep.ID, map[string]any{"url": ep.URL}, nil
	}
	eps, _, err := tx.Events().ListEndpoints(ctx, p.TenantID, p.Environment, ports.Page{Take: 1})
	if err != nil || len(eps) == 0 {
		return "", nil, err
	}
	return eps[0].ID, map[string]any{"url": eps[0].URL}, nil
}
