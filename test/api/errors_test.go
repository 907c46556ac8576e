package api

import (
	"strings"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

func TestErrors_EnvelopeEverywhere(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	anon := e.Client(t)
	cases := []struct {
		name           string
		client         func() *Response
		status         int
		code           string
		fieldMentioned string
	}{
		{"unknown route", func() *Response { return wrap(anon.Get("/v1/nothing-here")) }, 404, "ROUTE_NOT_FOUND", ""},
		{"unknown root path", func() *Response { return wrap(anon.Get("/favicon.ico")) }, 404, "ROUTE_NOT_FOUND", ""},
		{"wrong method", func() *Response { return wrap(anon.Do("DELETE", "/v1/capabilities", nil)) }, 405, "METHOD_NOT_ALLOWED", ""},
		{"malformed JSON", func() *Response { return wrap(ten.Root.Post("/v1/tenants/members", `{"email": `)) }, 400, "VALIDATION_FAILED", "body"},
		{"not an object", func() *Response { return wrap(ten.Root.Post("/v1/tenants/members", `[1,2]`)) }, 400, "VALIDATION_FAILED", "body"},
		{"trailing data", func() *Response { return wrap(ten.Root.Post("/v1/tenants/members", `{"email":"a@b.co"} {}`)) }, 400, "VALIDATION_FAILED", "body"},
		{"wrong type", func() *Response { return wrap(ten.Root.Post("/v1/tenants/members", `{"email": 42}`)) }, 400, "VALIDATION_FAILED", "email"},
		{"unknown enum", func() *Response {
			return wrap(ten.Root.Post("/v1/tenants/members", `{"email":"a@b.co","role":"KING"}`))
		}, 400, "VALIDATION_FAILED", "role"},
		{"unknown field", func() *Response { return wrap(ten.Root.Post("/v1/tenants/members", `{"email":"a@b.co","x":1}`)) }, 400, "VALIDATION_FAILED", "x"},
		{"bad paging", func() *Response { return wrap(ten.Root.Get("/v1/tenants/members?take=500")) }, 400, "VALIDATION_FAILED", "take"},
		{"negative paging", func() *Response { return wrap(ten.Root.Get("/v1/tenants/members?skip=-1")) }, 400, "VALIDATION_FAILED", "skip"},
		{"deep paging", func() *Response { return wrap(ten.Root.Get("/v1/tenants/members?skip=10001")) }, 400, "VALIDATION_FAILED", "skip"},
		{"deep paging, ledger export", func() *Response { return wrap(ten.Root.Get("/v1/ledger/entries?format=csv&skip=999999999")) }, 400, "VALIDATION_FAILED", "skip"},
		{"deep paging, wallets", func() *Response { return wrap(ten.Root.Get("/v1/wallets?skip=10001")) }, 400, "VALIDATION_FAILED", "skip"},
		{"unbuilt capability", func() *Response { return wrap(ten.Root.Get("/v1/cards")) }, 501, "FEATURE_NOT_AVAILABLE", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.client()
			m := r.resp.ExpectError(t, tc.status, tc.code)
			if tc.fieldMentioned != "" && harnessField(m, tc.fieldMentioned) == "" {
				t.Fatalf("details.fields.%s missing: %v", tc.fieldMentioned, m["details"])
			}
		})
	}
}

func TestErrors_BodyTooLarge(t *testing.T) {
	t.Parallel()
	small := harness.NewServer(t, func(c *wiring.Config) { c.BodyLimitBytes = 512 })
	ten := small.NewTenant(t)
	ten.Root.Post("/v1/tenants/members", `{"email":"`+strings.Repeat("a", 2048)+`@example.com"}`).ExpectError(t, 413, "PAYLOAD_TOO_LARGE")
	if total := ten.Root.Get("/v1/tenants/members").JSON(t)["total"].(float64); total != 0 {
		t.Fatal("an oversized request created a member")
	}
}

// TestErrors_BodyMediaType: JSON sent under text/plain (or a form type) answers 415
// UNSUPPORTED_MEDIA_TYPE and creates nothing; application/json with a charset is accepted.
func TestErrors_BodyMediaType(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	for _, ct := range []string{"text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded"} {
		ten.Root.With("Content-Type", ct).Post("/v1/tenants/members", `{"email":"plain@example.com"}`).
			ExpectError(t, 415, "UNSUPPORTED_MEDIA_TYPE")
	}
	if total := ten.Root.Get("/v1/tenants/members").JSON(t)["total"].(float64); total != 0 {
		t.Fatal("a text/plain request created a member")
	}
	ten.Session.With("Content-Type", "application/json; charset=utf-8").Post("/v1/tenants/members", `{"email":"json@example.com"}`).Expect(t, 201)

}

func TestErrors_RequestIDEchoedOrGenerated(t *testing.T) {
	t.Parallel()
	e := env()
	r := e.Client(t).With("X-Request-Id", "client-abc.123").Get("/v1/capabilities").Expect(t, 200)
	if r.Header.Get("X-Request-Id") != "client-abc.123" {
		t.Fatalf("X-Request-Id %q, want the client's", r.Header.Get("X-Request-Id"))
	}
	gen := e.Client(t).With("X-Request-Id", "bad id with spaces\u00e9").Get("/nope")
	id := gen.Header.Get("X-Request-Id")
	if !strings.HasPrefix(id, "req_") {
		t.Fatalf("generated request id %q", id)
	}
	gen.ExpectError(t, 404, "ROUTE_NOT_FOUND")
	if e.Client(t).Get("/healthz").Header.Get("X-Request-Id") == "" {
		t.Fatal("no X-Request-Id on a success response")
	}
}

type respWrap struct{ resp *harnessResponse }

func wrap(r *harnessResponse) *Response { return &Response{resp: r} }

// Response adapts the harness response for the table above.
type Response = respWrap

// TestPaging_SkipIsBounded: skip up to 10000 pages as before; beyond it the list answers 400
// instead of asking the database to read and discard that many rows.
func TestPaging_SkipIsBounded(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	if m := ten.Root.Get("/v1/tenants/members?skip=10000").Expect(t, 200).JSON(t); len(m["members"].([]any)) != 0 {
		t.Fatalf("a page past the end is not empty: %v", m)
	}
	e := ten.Root.Get("/v1/api-keys?skip=10001").ExpectError(t, 400, "VALIDATION_FAILED")
	if e["details"].(map[string]any)["fields"].(map[string]any)["skip"] == nil {
		t.Fatalf("details %v", e)
	}
}

// A request whose line and headers pass MaxHeaderBytes (8 KiB) answers 431 HEADERS_TOO_LARGE
// in the error envelope, not 400 VALIDATION_FAILED; headers below the limit (6 KiB, over
// fasthttp's default 4 KiB buffer) are served.
func TestErrors_HeadersTooLarge(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	padded := func(size int) *harness.Response {
		return ten.Root.With("X-Padding", strings.Repeat("a", size)).Get("/v1/tenants/current")
	}
	padded(6<<10).Expect(t, 200)
	r := padded(9 << 10)
	body := r.ExpectError(t, 431, "HEADERS_TOO_LARGE")
	if body["statusCode"] != float64(431) || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("9 KiB of headers: %d %v, want 431 HEADERS_TOO_LARGE in the envelope", r.Status, body)
	}
}
