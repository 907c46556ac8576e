package harness

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Delivery is one request a WebhookReceiver got.
type Delivery struct {
	Signature string
	Body      []byte
	Event     map[string]any
}

// WebhookReceiver is a webhook endpoint a test runs: it records every request and answers 500
// to the first fail of them, 200 after.
type WebhookReceiver struct {
	Srv  *httptest.Server
	mu   sync.Mutex
	got  []Delivery
	fail int
}

// NewWebhookReceiver starts a receiver, closed when the test ends.
func NewWebhookReceiver(t *testing.T, fail int) *WebhookReceiver {
	t.Helper()
	r := &WebhookReceiver{fail: fail}
	r.Srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var ev map[string]any
		_ = json.Unmarshal(body, &ev)
		r.mu.Lock()
		r.got = append(r.got, Delivery{Signature: req.Header.Get("Corridor-Signature"), Body: body, Event: ev})
		failing := r.fail > 0
		if failing {
			r.fail--
		}
		r.mu.Unlock()
		if failing {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.Srv.Close)
	return r
}

// URL is where the receiver listens.
func (r *WebhookReceiver) URL() string { return r.Srv.URL }

// Wait returns the deliveries once at least n arrived (up to 30 s).
func (r *WebhookReceiver) Wait(t *testing.T, n int) []Delivery {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r.mu.Lock()
		got := append([]Delivery(nil), r.got...)
		r.mu.Unlock()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("WebhookReceiver got %d deliveries, want %d", len(got), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
