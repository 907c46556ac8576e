package harness

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
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

// VerifyWebhookSignature is the recipe of docs/webhooks.md, written from the documentation:
// split the Corridor-Signature header into t and v1, HMAC-SHA256 "<t>.<raw body>" with the
// endpoint's secret, compare in constant time, and refuse a timestamp more than five minutes
// away.
func VerifyWebhookSignature(secret, header string, body []byte) bool {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sig = v
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(unix, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(body)))
	return hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(sig))
}

// Heal makes the receiver answer 200 from now on.
func (r *WebhookReceiver) Heal() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail = 0
}
