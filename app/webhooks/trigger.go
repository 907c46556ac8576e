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
// partner's handler sees the shape it will see in production.
var sampleResources = map[string]struct {
	prefix string
	data   map[string]any
}{
	"safe_payment":       {core.PrefixPayment, map[string]any{"amount": "12.5", "walletId": "wal_sandbox"}},
	"offramp_payment":    {core.PrefixOffRamp, map[string]any{"amount": "25"}},
	"claim":              {core.PrefixClaim, map[string]any{"amount": "25", "paymentId": "ofp_sandbox"}},
	"card":               {core.PrefixCard, map[string]any{"walletId": "wal_sandbox", "last4": "4242", "funding": "SAFE"}},
	"card_authorization": {core.PrefixCardAuth, map[string]any{"amount": "9.99", "cardId": "card_sandbox", "merchantName": "Sandbox Coffee", "mcc": "5814"}},
	"agent":              {core.PrefixAgent, map[string]any{"name": "sandbox agent"}},
	"invoice":            {"inv", map[string]any{"amount": "100"}},
	"treasury_sweep":     {core.PrefixSweep, map[string]any{"amount": "50", "paymentId": "pay_sandbox"}},
	"payment":            {"chk", map[string]any{"amount": "19.99", "currency": "USD"}},
	"refund":             {"chk", map[string]any{"amount": "19.99", "paymentId": "chk_sandbox"}},
	"webhook_endpoint":   {core.PrefixWebhookEndpoint, map[string]any{"url": "https://partner.example.com/webhooks"}},
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

// TriggerEvent records, in TEST only, an event of typ about a sample resource (`corridor
// trigger`): it goes through the same dispatch as every event, to the caller's endpoints and
// GET /v1/events, so a partner exercises its handler without making the state change happen.
// Its data says sandboxTrigger: true; it is recorded every time it is asked for.
func (s *Service) TriggerEvent(ctx context.Context, p auth.Principal, typ string) (event.Event, error) {
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
	data := map[string]any{"status": strings.ToUpper(state), "sandboxTrigger": true}
	for k, v := range sample.data {
		data[k] = v
	}
	e := event.New(p.TenantID, p.Environment, typ, core.NewID(sample.prefix), data, s.clock.Now())
	e.Repeatable = true
	err := s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		_, err := tx.Events().RecordEvent(ctx, e)
		return err
	})
	return e, err
}
