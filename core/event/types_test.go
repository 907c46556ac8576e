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
