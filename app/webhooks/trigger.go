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
	if !event.ValidType(typ) || !ok {
		return event.Event{}, core.Invalid("type", "an event type of a known family ("+strings.Join(TriggerFamilies(), ", ")+"), such as safe_payment.completed")
	}
	status := strings.ToUpper(state)
	if sample.lowerStatus {
		status = state
	}
	data := map[string]any{"status": status, "sandboxTrigger": true}
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
