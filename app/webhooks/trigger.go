package webhooks

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/timestamp"
	"github.com/corridorhq/corridor/core/twofactor"
	"github.com/corridorhq/corridor/ports"
)

// triggerFamilies are the event families a sandbox trigger emits, each with how a tenant makes
// its first object of the family: a trigger is always about a real object of the caller's (GET
// on data.id answers 200), so a caller with none is refused with this hint instead of being sent
// an event about an id that does not exist. `corridor trigger` (sdk/forward) reads the refusal
// and makes the object itself through the public API, then asks again.
var triggerFamilies = map[string]string{
	"safe_payment":       "propose a payment from a DEPLOYED wallet (POST /v1/payments)",
	"offramp_payment":    "send an off-ramp payment (POST /v1/offramp/payments)",
	"claim":              "send an off-ramp payment to a phone with no account yet, which opens a claim (POST /v1/offramp/payments)",
	"card":               "issue a card (POST /v1/cards)",
	"card_authorization": "ask the sandbox issuer for an authorization (POST /v1/sandbox/cards/{id}/authorizations)",
	"agent":              "create an agent (POST /v1/agents)",
	"invoice":            "create an invoice (POST /v1/invoices)",
	"treasury_sweep":     "propose a sweep between a treasury account's buckets (POST /v1/treasury/accounts/{id}/sweeps)",
	"payment":            "create a checkout (POST /v1/payments with amount, currency USD, cryptocurrency USDC)",
	"refund":             "refund a checkout that received USDC (POST /v1/payments/{id}/refund) and let it be sent",
	"webhook_endpoint":   "register an endpoint (POST /v1/webhook-endpoints)",
	"member":             "invite a member (POST /v1/tenants/members)",
	"twofactor":          "",
}

// triggerHint is the 409 a caller with no object of the family gets.
func triggerHint(kind, hint, typ string) error {
	return core.E(core.CodeInvalidState, "you have no %s in TEST yet, and a triggered event is always about a real one: %s, then trigger %s again "+
		"(corridor trigger does this itself)", kind, hint, typ)
}

// TriggerFamilies lists the event families TriggerEvent emits, sorted.
func TriggerFamilies() []string {
	out := make([]string, 0, len(triggerFamilies))
	for k := range triggerFamilies {
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
// object of the caller's: resourceID when given (an object of that family the caller's events
// name, else 400), otherwise the newest such object. A caller with no object of the family is
// refused (409 INVALID_STATE saying how to make one; `corridor trigger` then makes one), since an
// event about an id that GET answers 404 for misleads a handler; twofactor.locked is about the
// caller's tenant. Its data is the object's latest, with the status the type names and
// sandboxTrigger: true; it is recorded every time it is asked for.
func (s *Service) TriggerEvent(ctx context.Context, p auth.Principal, typ, resourceID string) (event.Event, error) {
	if err := kernel.RequireTenantScope(p, scope); err != nil {
		return event.Event{}, err
	}
	if err := kernel.RequireSandbox(p, "triggered events are sandbox only: use a TEST key"); err != nil {
		return event.Event{}, err
	}
	typ = strings.TrimSpace(typ)
	kind, state, _ := strings.Cut(typ, ".")
	firstObject, ok := triggerFamilies[kind]
	if _, documented := event.Documented(typ); !documented || !ok {
		return event.Event{}, core.Invalid("type", "a documented event type (docs/webhooks.md; the OpenAPI document's webhooks list them all), such as safe_payment.completed; families: "+strings.Join(TriggerFamilies(), ", "))
	}
	status, current := event.DataStatus(typ)
	var e event.Event
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		id, data, err := realResource(ctx, tx, p, kind, strings.TrimSpace(resourceID), s.clock.Now())
		if err != nil {
			return err
		}
		if id == "" {
			return triggerHint(kind, firstObject, typ)
		}
		merged := map[string]any{}
		for k, v := range data {
			merged[k] = v
		}
		if held, _ := merged["status"].(string); !current || held == "" {
			merged["status"] = status
		}
		if step, ok := strings.CutPrefix(state, "settlement_"); ok && kind == "card_authorization" {
			merged["settlementStatus"] = strings.ToUpper(step)
		}
		merged["sandboxTrigger"] = true
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
func realResource(ctx context.Context, tx txView, p auth.Principal, kind, named string, now time.Time) (string, map[string]any, error) {
	switch kind {
	case "webhook_endpoint":
		return realEndpoint(ctx, tx, p, named)
	case "member":
		return realMember(ctx, tx, p, named)
	case "twofactor":
		return realTwoFactorSubject(p, named, now)
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
func realEndpoint(ctx context.Context, tx txView, p auth.Principal, named string) (string, map[string]any, error) {
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

// realMember is the named member of the caller's tenant, or its first listed: inviting a member
// records no event, so the members themselves are read. Its data is its role and status, never
// its email.
func realMember(ctx context.Context, tx txView, p auth.Principal, named string) (string, map[string]any, error) {
	if named != "" {
		m, err := tx.Members().FindMember(ctx, p.TenantID, named)
		if err != nil {
			return "", nil, core.Invalid("resourceId", "names no member of yours")
		}
		return m.ID, map[string]any{"role": string(m.Role), "previousRole": string(m.Role)}, nil
	}
	members, _, err := tx.Members().ListMembers(ctx, p.TenantID, ports.Page{Take: 1})
	if err != nil || len(members) == 0 {
		return "", nil, err
	}
	return members[0].ID, map[string]any{"role": string(members[0].Role), "previousRole": string(members[0].Role)}, nil
}

// realTwoFactorSubject is what a triggered twofactor.locked is about: the caller's tenant, as a
// real lock of the environment's budget names it (the event's id is the tenant's, and GET
// /v1/tenants/current answers it), with the fields a real one carries, lockedUntil as if the
// lock began now. Nothing is locked: the caller can still verify codes.
func realTwoFactorSubject(p auth.Principal, named string, now time.Time) (string, map[string]any, error) {
	if named != "" && named != p.TenantID {
		return "", nil, core.Invalid("resourceId", "a twofactor event is about your tenant: omit resourceId or name your tenant's id")
	}
	return p.TenantID, map[string]any{"subject": twofactor.SubjectTenant, "failures": twofactor.FailureBudget,
		"lockedUntil": timestamp.Format(now.Add(twofactor.LockoutDuration))}, nil
}
