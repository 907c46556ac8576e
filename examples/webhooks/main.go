// Command webhooks receives a webhook on this machine and verifies its signature with the
// recipe of docs/webhooks.md: a local receiver checks Corridor-Signature against the raw body
// before parsing it. Events reach it through a listener (what `corridor listen` runs), and the
// sandbox emits one (what `corridor trigger` asks for); with a registered endpoint the receiver
// is the same, with the endpoint's secret.
//
//	CORRIDOR_URL=http://localhost:8080 CORRIDOR_API_KEY=csk_test_… go run ./examples/webhooks
package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/corridorhq/corridor/sdk/forward"
)

// tolerance refuses a signature timestamp this far from the receiver's clock (a replay).
const tolerance = 5 * time.Minute

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	base, key := os.Getenv("CORRIDOR_URL"), os.Getenv("CORRIDOR_API_KEY")
	if base == "" {
		base = "http://localhost:8080"
	}
	api, err := forward.NewAPI(base, key, "")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	received := make(chan string, 1)
	var secret string
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || !verify(secret, r.Header.Get("Corridor-Signature"), body, time.Now()) {
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		var event struct{ ID, Type string }
		if err := json.Unmarshal(body, &event); err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent) // answer 2xx quickly; work happens after
		select {
		case received <- event.Type + " " + event.ID:
		default:
		}
	}))
	defer receiver.Close()

	listener, err := forward.NewListener(forward.Options{API: api, ForwardTo: receiver.URL, Interval: 200 * time.Millisecond, Out: os.Stdout})
	if err != nil {
		return err
	}
	secret = listener.Secret()
	stopped := make(chan error, 1)
	go func() { stopped <- listener.Run(ctx) }()
	select {
	case <-listener.Ready(): // events recorded from now on are forwarded
	case err := <-stopped:
		return fmt.Errorf("the listener stopped: %v", err)
	}
	// A trigger for a tenant with no object of the family makes one first (a fixture), so the
	// event names a real object even for a fresh tenant.
	if _, err := forward.Trigger(ctx, api, "agent.created"); err != nil {
		return err
	}
	select {
	case got := <-received:
		fmt.Println("verified", got)
		return nil
	case <-ctx.Done():
		return fmt.Errorf("no verified webhook arrived")
	}
}

// verify is docs/webhooks.md's recipe: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw
// body>"> keyed with the whole whsec_… secret, compared in constant time, within tolerance.
func verify(secret, header string, body []byte, now time.Time) bool {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	if d := now.Sub(time.Unix(unix, 0)); d > tolerance || d < -tolerance {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, s := range sigs {
		if got, err := hex.DecodeString(s); err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}
