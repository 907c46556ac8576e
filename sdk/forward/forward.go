// Package forward is `corridor listen` and `corridor trigger`: local webhook development
// against a running service (make run) without registering a reachable endpoint. Listen
// follows the caller's events through GET /v1/events and forwards each to a local URL, signed
// as a real delivery is (Corridor-Signature with a secret kept on this machine per service and
// tenant, SecretStore, and printed); Trigger asks the sandbox to emit an event of a type.
package forward

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/timestamp"
	"github.com/corridorhq/corridor/core/webhook"
	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
)

// pageSize is how many events one poll reads; a burst larger than this between two polls is
// read over the following polls, since the window starts at the oldest unforwarded event.
const pageSize = 100

// Options configure a Listener.
type Options struct {
	API       *corridor.ClientWithResponses
	ForwardTo string
	// Interval between two polls of GET /v1/events; zero is one second.
	Interval time.Duration
	// Out receives the secret line and one line per forwarded event.
	Out io.Writer
	// HTTP posts to ForwardTo; nil is a client with a 10 s time-out, as deliveries have.
	HTTP *http.Client
	// Secret signs every forwarded event (SecretStore keeps one per tenant); empty is a fresh
	// one for this listener only.
	Secret string
	// Events are the types forwarded: documented types, families ("card_authorization.*") or
	// "*"; empty is every type.
	Events []string
}

// Listener forwards the events recorded after it starts.
type Listener struct {
	opts   Options
	secret string
	seen   map[string]time.Time
	since  time.Time
	ready  chan struct{}
}

// NewListener makes a listener with a fresh signing secret.
func NewListener(opts Options) (*Listener, error) {
	if opts.API == nil || opts.ForwardTo == "" || opts.Out == nil {
		return nil, errors.New("forward: an API client, a URL to forward to and an output are required")
	}
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	if opts.HTTP == nil {
		opts.HTTP = &http.Client{Timeout: 10 * time.Second}
	}
	if err := checkFilter(opts.Events); err != nil {
		return nil, err
	}
	secret := opts.Secret
	if secret == "" {
		secret = webhook.NewSecret()
	} else if !strings.HasPrefix(secret, webhook.SecretPrefix) {
		return nil, fmt.Errorf("forward: the signing secret must start with %s", webhook.SecretPrefix)
	}
	return &Listener{opts: opts, secret: secret, seen: map[string]time.Time{}, ready: make(chan struct{})}, nil
}

// checkFilter refuses an --events entry that names no documented type or family: a typo would
// otherwise make the listener wait for an event that never comes.
func checkFilter(types []string) error {
	for _, t := range types {
		if t == "*" {
			continue
		}
		if family, ok := strings.CutSuffix(t, ".*"); ok {
			if !slices.ContainsFunc(event.Families, func(f event.Family) bool { return f.Kind == family }) {
				return fmt.Errorf("forward: --events: %q names no documented family", t)
			}
			continue
		}
		if _, ok := event.Documented(t); !ok {
			return fmt.Errorf("forward: --events: %q is not a documented event type (the OpenAPI document's webhooks list them)", t)
		}
	}
	return nil
}

// wants reports whether the filter lets an event of typ through.
func (l *Listener) wants(typ string) bool {
	if len(l.opts.Events) == 0 {
		return true
	}
	family, _, _ := strings.Cut(typ, ".")
	for _, t := range l.opts.Events {
		if t == "*" || t == typ || t == family+".*" {
			return true
		}
	}
	return false
}

// Secret is the whsec_… secret every forwarded event is signed with.
func (l *Listener) Secret() string { return l.secret }

// Ready is closed once Run has marked the events that existed when it started: an event
// recorded after that is forwarded.
func (l *Listener) Ready() <-chan struct{} { return l.ready }

// Run prints the secret, then forwards new events until ctx ends. Events that exist when it
// starts are not forwarded: the newest one's time is the window's start.
func (l *Listener) Run(ctx context.Context) error {
	if err := l.start(ctx); err != nil {
		return err
	}
	which := "every event"
	if len(l.opts.Events) > 0 {
		which = strings.Join(l.opts.Events, ", ")
	}
	fmt.Fprintf(l.opts.Out, "Ready: forwarding %s to %s\nWebhook signing secret: %s\n", which, l.opts.ForwardTo, l.secret)
	close(l.ready)
	ticker := time.NewTicker(l.opts.Interval)
	defer ticker.Stop()
	for {
		if err := l.poll(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintf(l.opts.Out, "%s  could not read events: %v\n", time.Now().UTC().Format(time.RFC3339), err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// start marks the events already recorded as seen and starts the window at the newest.
func (l *Listener) start(ctx context.Context) error {
	events, err := l.list(ctx, time.Time{})
	if err != nil {
		return fmt.Errorf("forward: read the events (the credential needs keys:manage): %w", err)
	}
	for _, e := range events {
		l.seen[e.Id] = e.CreatedAt
		if e.CreatedAt.After(l.since) {
			l.since = e.CreatedAt
		}
	}
	return nil
}

// poll forwards the events of the window not forwarded yet, oldest first.
func (l *Listener) poll(ctx context.Context) error {
	events, err := l.list(ctx, l.since)
	if err != nil {
		return err
	}
	slices.Reverse(events) // the API lists newest first
	for _, e := range events {
		if _, done := l.seen[e.Id]; done {
			continue
		}
		l.seen[e.Id] = e.CreatedAt
		if l.wants(e.Type) {
			// A failed forward is printed by forward and not retried, as a delivery log shows it.
			_, _ = l.forward(ctx, e)
		}
		if e.CreatedAt.After(l.since) {
			l.since = e.CreatedAt
		}
	}
	for id, at := range l.seen { // keep only what the window can still return
		if at.Before(l.since) {
			delete(l.seen, id)
		}
	}
	return nil
}

// list reads one page of events created at or after since (the zero time: the newest page).
func (l *Listener) list(ctx context.Context, since time.Time) ([]corridor.Event, error) {
	take := pageSize
	params := &corridor.ListEventsParams{Take: &take}
	if !since.IsZero() {
		from := since.UTC().Format(time.RFC3339Nano)
		params.From = &from
	}
	resp, err := l.opts.API.ListEventsWithResponse(ctx, params)
	if err != nil {
		return nil, err
	}
	if resp.JSON200 == nil {
		return nil, fmt.Errorf("GET /v1/events answered %d: %s", resp.StatusCode(), bytes.TrimSpace(resp.Body))
	}
	return resp.JSON200.Events, nil
}

// Resend forwards one past event again, by id, whether or not the filter wants it (the person
// asked for it by name), and returns the receiver's status.
func (l *Listener) Resend(ctx context.Context, eventID string) (int, error) {
	resp, err := l.opts.API.GetEventWithResponse(ctx, strings.TrimSpace(eventID))
	if err != nil {
		return 0, err
	}
	if resp.JSON200 == nil {
		return 0, fmt.Errorf("GET /v1/events/%s answered %d: %s", eventID, resp.StatusCode(), bytes.TrimSpace(resp.Body))
	}
	return l.forward(ctx, *resp.JSON200)
}

// forward posts one event as a delivery would, prints the receiver's status and returns it.
func (l *Listener) forward(ctx context.Context, e corridor.Event) (int, error) {
	status, err := l.post(ctx, e)
	now := time.Now().UTC().Format(time.RFC3339)
	if err != nil {
		fmt.Fprintf(l.opts.Out, "%s  %s %s  → error: %v\n", now, e.Type, e.Id, err)
		return 0, err
	}
	fmt.Fprintf(l.opts.Out, "%s  %s %s  → %d\n", now, e.Type, e.Id, status)
	return status, nil
}

// post sends one event, signed, and returns the receiver's status.
func (l *Listener) post(ctx context.Context, e corridor.Event) (int, error) {
	body, err := json.Marshal(map[string]any{"id": e.Id, "type": e.Type, "event": e.Type, "data": e.Data, "created_at": timestamp.Format(e.CreatedAt)})
	if err != nil {
		return 0, fmt.Errorf("could not encode: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.opts.ForwardTo, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("bad URL: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(webhook.SignatureHeader, webhook.Sign(l.secret, time.Now(), body))
	req.Header.Set("Corridor-Event-Id", e.Id)
	req.Header.Set("Corridor-Delivery-Id", "whd_listen_"+e.Id)
	resp, err := l.opts.HTTP.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// TenantID is the id of the tenant the client's credential belongs to (the listen secret is
// kept per tenant).
func TenantID(ctx context.Context, api *corridor.ClientWithResponses) (string, error) {
	resp, err := api.GetCurrentTenantWithResponse(ctx)
	if err != nil {
		return "", err
	}
	if resp.JSON200 == nil {
		return "", fmt.Errorf("GET /v1/tenants/current answered %d: %s", resp.StatusCode(), bytes.TrimSpace(resp.Body))
	}
	return resp.JSON200.Id, nil
}

// Trigger asks the sandbox to emit an event of typ (TEST keys only) about a real object of the
// caller's, and returns it: the caller's newest object of the type's family. A caller with none
// (409) gets one made by the family's fixture (fixtures.go: the public API, as a partner would
// make it), and the event is about that object, so GET on data.id answers 200 on a fresh
// sandbox tenant for every documented type. An undocumented type is refused (400) and makes
// nothing.
func Trigger(ctx context.Context, api *corridor.ClientWithResponses, typ string) (corridor.Event, error) {
	req := corridor.TriggerEventRequest{Type: typ}
	resp, err := api.SandboxTriggerEventWithResponse(ctx, &corridor.SandboxTriggerEventParams{}, req)
	if err != nil {
		return corridor.Event{}, err
	}
	family, _, _ := strings.Cut(typ, ".")
	if fixture, ok := fixtures[family]; ok && resp.StatusCode() == http.StatusConflict {
		id, err := fixture(ctx, api)
		if err != nil {
			return corridor.Event{}, fmt.Errorf("making a %s for %s: %w", family, typ, err)
		}
		req.ResourceId = &id
		if resp, err = api.SandboxTriggerEventWithResponse(ctx, &corridor.SandboxTriggerEventParams{}, req); err != nil {
			return corridor.Event{}, err
		}
	}
	if resp.JSON201 == nil {
		return corridor.Event{}, fmt.Errorf("POST /v1/sandbox/events answered %d: %s", resp.StatusCode(), bytes.TrimSpace(resp.Body))
	}
	return *resp.JSON201, nil
}

// NewAPI is the generated client for baseURL authenticated by an API key or, when apiKey is
// empty, a session token.
func NewAPI(baseURL, apiKey, sessionToken string) (*corridor.ClientWithResponses, error) {
	if apiKey == "" && sessionToken == "" {
		return nil, errors.New("forward: an API key (CORRIDOR_API_KEY) or a session token (CORRIDOR_SESSION) is required")
	}
	return corridor.NewClientWithResponses(baseURL, corridor.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		if apiKey != "" {
			r.Header.Set("X-Service-Api-Key", apiKey)
		} else {
			r.Header.Set("Authorization", "Bearer "+sessionToken)
		}
		return nil
	}))
}
