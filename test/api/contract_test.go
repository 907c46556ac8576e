package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestContract_CatchesDrift: the check every harness response goes through refuses a body, a
// status or a content type the document does not describe, so a drifting handler fails tests.
func TestContract_CatchesDrift(t *testing.T) {
	t.Parallel()
	e := env()
	k, err := e.Contract()
	if err != nil {
		t.Fatal(err)
	}
	ten := e.NewTenant(t)
	good := ten.Root.Get("/v1/tenants/current").Expect(t, 200)
	if err := k.Check("GET", "/v1/tenants/current", 200, good.Header, good.Body); err != nil {
		t.Fatalf("a genuine response is refused: %v", err)
	}
	tenant := good.JSON(t)
	changed := func(change func(m map[string]any)) []byte {
		m := map[string]any{}
		for k, v := range tenant {
			m[k] = v
		}
		change(m)
		b, _ := json.Marshal(m)
		return b
	}
	jsonHeader := func(h http.Header, ct string) http.Header {
		out := h.Clone()
		out.Set("Content-Type", ct)
		return out
	}
	notFound := ten.Root.Get("/v1/wallets/wal_nothere").Expect(t, 404)
	cases := []struct {
		name           string
		method, target string
		status         int
		header         http.Header
		body           []byte
		want           string // a fragment of the error; "" accepts the response
	}{
		{"required field missing", "GET", "/v1/tenants/current", 200, good.Header,
			changed(func(m map[string]any) { delete(m, "slug") }), "slug"},
		{"wrong type", "GET", "/v1/tenants/current", 200, good.Header,
			changed(func(m map[string]any) { m["id"] = 42 }), "id"},
		{"field not in the document", "GET", "/v1/tenants/current", 200, good.Header,
			changed(func(m map[string]any) { m["plan"] = "gold" }), "plan"},
		{"null where the document does not allow it", "GET", "/v1/tenants/current", 200, good.Header,
			changed(func(m map[string]any) { m["name"] = nil }), "name"},
		{"value outside the enum", "GET", "/v1/tenants/current", 200, good.Header,
			changed(func(m map[string]any) { m["role"] = "KING" }), "role"},
		{"undocumented status", "GET", "/v1/tenants/current", 418, good.Header, good.Body, "status 418 is not documented"},
		{"undocumented success status", "GET", "/v1/tenants/current", 201, good.Header, good.Body, "status 201 is not documented"},
		{"undocumented content type", "GET", "/v1/tenants/current", 200, jsonHeader(good.Header, "text/html"), good.Body, "text/html"},
		{"missing X-Request-Id", "GET", "/v1/tenants/current", 200, jsonHeader(http.Header{}, "application/json"), good.Body, "X-Request-Id"},
		{"error body that is not the envelope", "GET", "/v1/wallets/wal_nothere", 404, notFound.Header, []byte(`{"error":"nope"}`), "statusCode"},
		{"genuine error", "GET", "/v1/wallets/wal_nothere", 404, notFound.Header, notFound.Body, ""},
		{"error code its status cannot carry", "GET", "/v1/wallets/wal_nothere", 404, notFound.Header,
			[]byte(strings.Replace(string(notFound.Body), "WALLET_NOT_FOUND", "INSUFFICIENT_FUNDS", 1)), "code"},
		{"success on a path no operation has", "GET", "/v1/nothing-here", 200, good.Header, good.Body, "no operation matches"},
		{"error envelope on a path no operation has", "GET", "/v1/nothing-here", 404, notFound.Header, notFound.Body, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := k.Check(tc.method, tc.target, tc.status, tc.header, tc.body)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted a drifting response")
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
	if k.Checked.Load() == 0 {
		t.Fatal("the harness checked no response")
	}
}
