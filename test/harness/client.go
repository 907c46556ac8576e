package harness

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

var httpClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// Client is an HTTP client bound to one credential. Every response it receives is checked
// against the service's OpenAPI document (contract.go).
type Client struct {
	t       testing.TB
	env     *Env
	headers map[string]string
	// tenant, when known (a tenant's key), narrows the wait for its sandbox outbox to its own
	// texts: waiting for every tenant's made one tenant's read depend on the whole queue.
	tenant string
}

// Client returns an anonymous client.
func (e *Env) Client(t testing.TB) *Client {
	return &Client{t: t, env: e, headers: map[string]string{}}
}

// With returns a copy with one more header.
func (c *Client) With(name, value string) *Client {
	h := make(map[string]string, len(c.headers)+1)
	for k, v := range c.headers {
		h[k] = v
	}
	h[name] = value
	return &Client{t: c.t, env: c.env, headers: h, tenant: c.tenant}
}

// ofTenant returns a copy that knows its credential acts for tenant.
func (c *Client) ofTenant(tenant string) *Client {
	cp := *c
	cp.tenant = tenant
	return &cp
}

// WithKey authenticates with an API key.
func (c *Client) WithKey(key string) *Client { return c.With("X-Service-Api-Key", key) }

// WithSession authenticates with a session token.
func (c *Client) WithSession(token string) *Client { return c.With("Authorization", "Bearer "+token) }

// Response is a finished request.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends a request; body may be nil, a string/[]byte (sent raw) or a value (sent as JSON).
// A response that drifts from the OpenAPI document fails the test (without stopping it).
func (c *Client) Do(method, path string, body any) *Response {
	c.t.Helper()
	if isSMSOutboxRead(method, path) {
		c.env.settleSMS(c.t, c.tenant)
	}
	r, err := c.Try(method, path, body)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// Try is Do that returns a transport error (a replica that stopped, a connection reset)
// instead of failing the test, for clients that retry elsewhere as a load balancer's do.
func (c *Client) Try(method, path string, body any) (*Response, error) {
	c.t.Helper()
	var reader io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		reader = strings.NewReader(b)
	case []byte:
		reader = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			c.t.Fatalf("encode body: %v", err)
		}
		reader = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.env.BaseURL+path, reader)
	if err != nil {
		c.t.Fatalf("new request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	r, err := c.send(req)
	if err != nil {
		return nil, err
	}
	c.env.checkContract(c.t, method, path, r.Status, r.Header, r.Body)
	return r, nil
}

func (c *Client) send(req *http.Request) (*Response, error) {
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}, nil
}

// Get and Post are shorthands.
func (c *Client) Get(path string) *Response {
	c.t.Helper()
	return c.Do(http.MethodGet, path, nil)
}

func (c *Client) Post(path string, body any) *Response {
	c.t.Helper()
	return c.Do(http.MethodPost, path, body)
}

// JSON decodes the body as an object.
func (r *Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object (%v): %s", err, r.Body)
	}
	return m
}

// Decode decodes the body into v.
func (r *Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode body (%v): %s", err, r.Body)
	}
}

// Expect fails the test unless the status matches; it returns r for chaining.
func (r *Response) Expect(t testing.TB, status int) *Response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body: %s", r.Status, status, r.Body)
	}
	return r
}

// ExpectError checks status, code and the whole envelope shape.
func (r *Response) ExpectError(t testing.TB, status int, code string) map[string]any {
	t.Helper()
	r.Expect(t, status)
	m := r.JSON(t)
	if m["code"] != code {
		t.Fatalf("code %v, want %s; body: %s", m["code"], code, r.Body)
	}
	if int(m["statusCode"].(float64)) != status {
		t.Fatalf("envelope statusCode %v, want %d", m["statusCode"], status)
	}
	if s, _ := m["message"].(string); s == "" {
		t.Fatalf("envelope without message: %s", r.Body)
	}
	// A replayed response is the stored one, so its body names the original request's id.
	replayed := r.Header.Get("Idempotent-Replayed") == "true"
	if id, _ := m["requestId"].(string); id == "" || (!replayed && id != r.Header.Get("X-Request-Id")) {
		t.Fatalf("envelope requestId %q does not match X-Request-Id %q", id, r.Header.Get("X-Request-Id"))
	}
	return m
}

// Field returns details.fields[name] of a VALIDATION_FAILED envelope.
func Field(m map[string]any, name string) string {
	details, _ := m["details"].(map[string]any)
	fields, _ := details["fields"].(map[string]any)
	s, _ := fields[name].(string)
	return s
}

// NewestFirst fails the test unless items (JSON objects) are ordered by the timestamp in field,
// newest first. Timestamps are compared as instants: RFC 3339 strings drop trailing zeros of
// the fraction, so ".8501Z" and ".850118Z" do not order as strings.
func NewestFirst(t testing.TB, items []any, field string) {
	t.Helper()
	var prev time.Time
	for i, raw := range items {
		s, _ := raw.(map[string]any)[field].(string)
		at, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("item %d: %s %q: %v", i, field, s, err)
		}
		if i > 0 && at.After(prev) {
			t.Fatalf("not newest first at %d: %v", i, items)
		}
		prev = at
	}
}
