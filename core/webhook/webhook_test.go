package webhook

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/core/event"
)

func TestSignVerify(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	body := []byte(`{"id":"evt_1"}`)
	h := Sign("whsec_abc", at, body)
	if h[:13] != "t=1700000000," {
		t.Fatalf("header %q", h)
	}
	if !Verify("whsec_abc", h, body, at.Add(time.Minute), 5*time.Minute) {
		t.Fatal("a valid signature does not verify")
	}
	for name, ok := range map[string]bool{
		"other secret": Verify("whsec_other", h, body, at, 5*time.Minute),
		"other body":   Verify("whsec_abc", h, []byte(`{"id":"evt_2"}`), at, 5*time.Minute),
		"too old":      Verify("whsec_abc", h, body, at.Add(10*time.Minute), 5*time.Minute),
		"garbled":      Verify("whsec_abc", "t=x,v1=zz", body, at, 5*time.Minute),
	} {
		if ok {
			t.Errorf("%s: verified", name)
		}
	}
}

func TestEndpointChecks(t *testing.T) {
	for u, ok := range map[string]bool{"https://example.com/hook": true, "http://127.0.0.1:8080/x": true,
		"ftp://example.com": false, "https://user:pw@example.com": false, "/relative": false, "": false} {
		if err := CheckURL(u); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v", u, err)
		}
	}
	if CheckEventTypes([]string{"safe_payment.completed", "*"}) != nil || CheckEventTypes([]string{"Bad Type"}) == nil {
		t.Fatal("event type checks")
	}
	e := Endpoint{EventTypes: []string{"a.b"}}
	if !e.Wants("a.b") || e.Wants("a.c") || !(Endpoint{}).Wants("x.y") {
		t.Fatal("Wants")
	}
}

// TestCheckEventTypes_EveryDocumentedType: a subscription listing every documented event type
// (core/event) one by one is accepted (docs/webhooks.md: a listed type is never refused).
func TestCheckEventTypes_EveryDocumentedType(t *testing.T) {
	if err := CheckEventTypes(event.DocumentedTypes()); err != nil {
		t.Fatalf("the %d documented types are refused: %v", len(event.DocumentedTypes()), err)
	}
}
