package harness

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
)

// SDK returns the generated Go client (sdk/go/corridor) authenticated with an API key. Black-box
// tests speak through it rather than maps, so a renamed field fails to compile (docs/architecture.md,
// Tests); every response it receives is checked against the served document, as a Client's is.
func (e *Env) SDK(t testing.TB, apiKey string) *corridor.ClientWithResponses {
	t.Helper()
	withKey := func(_ context.Context, req *http.Request) error {
		req.Header.Set("X-Service-Api-Key", apiKey)
		return nil
	}
	client, err := corridor.NewClientWithResponses(e.BaseURL,
		corridor.WithHTTPClient(&http.Client{Timeout: httpClient.Timeout, Transport: contractTransport{t: t, env: e}}),
		corridor.WithRequestEditorFn(withKey))
	if err != nil {
		t.Fatalf("the generated client: %v", err)
	}
	return client
}

// contractTransport checks every response against the served OpenAPI document, then hands
// the body on unread.
type contractTransport struct {
	t   testing.TB
	env *Env
}

func (c contractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := httpClient.Transport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	c.env.checkContract(c.t, req.Method, req.URL.RequestURI(), resp.StatusCode, resp.Header, raw)
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	return resp, nil
}

// Until calls get until ok accepts its result, failing after a minute with what: Poll for the
// generated client's typed answers.
func Until[T any](t testing.TB, what string, get func() T, ok func(T) bool) T {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		v := get()
		if ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("never %s: %+v", what, v)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
