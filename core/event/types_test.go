package event

import "testing"

// TestDocumentedTypes: the documented list has the 65 types the docs' table spells out, each a
// valid type, and none of the names partners were once offered that the service never sends.
func TestDocumentedTypes(t *testing.T) {
	types := DocumentedTypes()
	if len(types) != 65 {
		t.Fatalf("%d documented types, want 65", len(types))
	}
	for _, typ := range types {
		if !ValidType(typ) {
			t.Errorf("%q is not a valid type", typ)
		}
	}
	for _, typ := range []string{"claim.redeemed", "invoice.paid", "payment.refunded"} {
		if _, ok := Documented(typ); ok {
			t.Errorf("%q is documented", typ)
		}
	}
	if _, ok := Documented("payment.completed"); !ok {
		t.Error("payment.completed is not documented")
	}
}

// TestDataStatus: data.status as the recorders write it, for each spelling rule, and an
// upper-case or lower-case value for every documented type.
func TestDataStatus(t *testing.T) {
	for typ, want := range map[string]string{
		"safe_payment.completed": "COMPLETED", "invoice.funded": "FUNDED", "payment.completed": "completed",
		"refund.processed": "processed", "card.issued": "active", "card.frozen": "inactive", "card.unfrozen": "active",
		"card.limits_updated": "active", "agent.created": "ACTIVE", "agent.suspended": "SUSPENDED",
		"agent.reactivated": "ACTIVE", "card_authorization.captured": "CAPTURED",
		"card_authorization.settlement_confirmed": "CAPTURED", "webhook_endpoint.disabled": "DISABLED",
	} {
		if got, _ := DataStatus(typ); got != want {
			t.Errorf("%s: %q, want %q", typ, got, want)
		}
	}
	for _, typ := range []string{"card.limits_updated", "agent.limits_updated", "member.role_changed"} {
		if _, current := DataStatus(typ); !current {
			t.Errorf("%s: a change event carries the resource's status then", typ)
		}
	}
	for _, typ := range DocumentedTypes() {
		if got, _ := DataStatus(typ); got == "" {
			t.Errorf("%s: no status", typ)
		}
	}
}
