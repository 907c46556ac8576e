package twofa

import (
	"net/http"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestText_NamesAndLabelsRefuseInvisibleAndControlCharacters: every name, label and description
// a person reads elsewhere (a contact's label becomes a challenge's payee label, a wallet's name
// the console's, a memo the hosted page's) goes through the one text rule: CR/LF, ESC, a bidi
// override (U+202E) and a zero-width space are each 400 VALIDATION_FAILED naming the field, and
// nothing is created; ordinary accented text is accepted.
func TestText_NamesAndLabelsRefuseInvisibleAndControlCharacters(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	bad := []string{"Supplier\r\nX-Injected: 1", "red\x1b[31m", "invoice\u202eexe.pdf", "Acme\u200bLtd"}
	routes := []struct {
		path, field string
		body        func(v string) map[string]any
	}{
		{"/v1/contacts", "label", func(v string) map[string]any { return map[string]any{"address": freshAddress(t), "label": v} }},
		{"/v1/twofactor/factors", "label", func(v string) map[string]any { return map[string]any{"label": v} }},
		{"/v1/api-keys", "name", func(v string) map[string]any { return map[string]any{"name": v, "scopes": []string{"wallets:read"}} }},
		{"/v1/agents", "name", func(v string) map[string]any { return map[string]any{"name": v} }},
		{"/v1/cardholders", "name", func(v string) map[string]any { return map[string]any{"name": v, "email": "ana@example.com"} }},
		{"/v1/tenants/members", "displayName", func(v string) map[string]any { return map[string]any{"email": "m@example.com", "displayName": v} }},
		{"/v1/wallets", "name", func(v string) map[string]any {
			return map[string]any{"name": v, "owners": []map[string]any{{"address": freshAddress(t), "role": "FINANCE_OWNER"}}}
		}},
		{"/v1/payments", "memo", func(v string) map[string]any {
			body := payTo(w, freshAddress(t), "1")
			body["memo"] = v
			return body
		}},
	}
	for _, r := range routes {
		for _, v := range bad {
			m := ten.Root.Post(r.path, r.body(v)).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
			if harness.Field(m, r.field) == "" {
				t.Errorf("%s with %q: the refusal does not name %s: %v", r.path, v, r.field, m)
			}
		}
	}
	ten.Root.Do(http.MethodPut, "/v1/directory/handle", map[string]any{"handle": "text-" + w[len(w)-8:], "walletId": w, "displayName": "Acme\u202e"}).
		ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	for _, list := range []string{"/v1/contacts", "/v1/agents", "/v1/payments"} {
		if got := ten.Root.Get(list).Expect(t, http.StatusOK).JSON(t); got["total"] != float64(0) {
			t.Errorf("%s after refusals: %v", list, got["total"])
		}
	}
	ten.Root.Post("/v1/contacts", map[string]any{"address": freshAddress(t), "label": "Café Zürich — 東京"}).Expect(t, http.StatusCreated)
}
