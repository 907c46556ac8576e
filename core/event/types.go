package event

import (
	"sort"
	"strings"
)

// Family is one resource kind's documented event types and when each is recorded. It is the
// one list that docs/webhooks.md's table, the OpenAPI document's webhooks, the console's
// endpoint form and `corridor trigger` read, so a type cannot be offered in one and missing in
// another (a console that offered a type the service never sends made partners wait for it).
type Family struct {
	Kind     string
	Statuses []string
	When     string
}

// Families are the documented event families, in the order docs/webhooks.md lists them.
var Families = []Family{
	{"safe_payment", strings.Fields("awaiting_signature signing ready_to_execute executing completed failed cancelled"), "a Safe payment is proposed or reaches this status"},
	{"offramp_payment", strings.Fields("recipient_resolution pending_claim source_funds_confirmed policy_check route_quoted awaiting_recipient_confirmation payout_selection_required compliance_hold funds_locked provider_submitted provider_processing action_required delivered failed refund_pending refunded canceled"), "an off-ramp payment reaches this status (to the sender tenant)"},
	{"claim", strings.Fields("open locked released refunded expired canceled"), "a pending claim is opened or reaches this status (never carries the phone number)"},
	{"card", strings.Fields("issued frozen unfrozen limits_updated"), "a card is issued, frozen, unfrozen or has its limits changed (data.limits)"},
	{"card_authorization", strings.Fields("approved declined captured reversed settlement_submitted settlement_confirmed settlement_failed"), "a card authorization is decided, captured, reversed, or its on-chain settlement moves"},
	{"agent", strings.Fields("created limits_updated suspended reactivated"), "an agent is created, has its caps changed, is suspended or reactivated"},
	{"invoice", strings.Fields("draft sent funded delivered expired released refunded cancelled"), "an escrow invoice is created or reaches this status"},
	{"treasury_sweep", strings.Fields("proposed completed failed cancelled"), "a treasury sweep is proposed or its payment reaches a final status"},
	{"payment", strings.Fields("created pending completed failed"), "a hosted checkout (chk_…) is created or reaches this status (docs/checkout.md)"},
	{"refund", strings.Fields("processed"), "a checkout's refund was sent on chain"},
	{"webhook_endpoint", strings.Fields("disabled"), "an endpoint failed for the whole retry window and was disabled"},
	{"member", strings.Fields("role_changed"), "a member's role was changed (data.role, data.previousRole, data.changedBy: the key or member that changed it)"},
	{"twofactor", strings.Fields("locked"), "two-factor verification was locked after too many wrong codes (data.subject: the tenant's environment or factor:<id>; data.lockedUntil)"},
}

// documented is every documented type with when it is recorded.
var documented = func() map[string]string {
	out := map[string]string{}
	for _, f := range Families {
		for _, s := range f.Statuses {
			out[f.Kind+"."+s] = f.When
		}
	}
	return out
}()

// DocumentedTypes are the documented event types, sorted.
func DocumentedTypes() []string {
	out := make([]string, 0, len(documented))
	for t := range documented {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Documented reports whether typ is a documented event type, and when it is recorded.
func Documented(typ string) (when string, ok bool) {
	when, ok = documented[typ]
	return when, ok
}

// DataStatus is data.status on a real event of the documented type typ. Most families carry the
// state the type names, upper case (safe_payment.completed: COMPLETED); the checkout families
// (payment, refund) carry it lower case. The card and agent families and member.role_changed
// carry the resource's own status instead: what the event leaves it in (card.frozen: inactive),
// or, for an event that changes no status (card.limits_updated), whatever the status is then;
// current reports that case, status being its usual value. A captured authorization's
// settlement events carry the authorization's status, CAPTURED (the step is settlementStatus).
// The sandbox trigger and the OpenAPI document's examples read it, so neither shows a handler a
// status the real events never carry.
func DataStatus(typ string) (status string, current bool) {
	kind, state, _ := strings.Cut(typ, ".")
	switch kind {
	case "payment", "refund":
		return state, false
	case "card":
		switch state {
		case "frozen":
			return "inactive", false
		case "limits_updated":
			return "active", true
		}
		return "active", false
	case "agent":
		switch state {
		case "suspended":
			return "SUSPENDED", false
		case "limits_updated":
			return "ACTIVE", true
		}
		return "ACTIVE", false
	case "member":
		return "ACTIVE", true
	case "card_authorization":
		if strings.HasPrefix(state, "settlement_") {
			return "CAPTURED", false
		}
	}
	return strings.ToUpper(state), false
}
