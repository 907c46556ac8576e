package listen

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/sdk/forward"
	"github.com/corridorhq/corridor/test/harness"
)

// runListener starts a listener with opts (API and Out filled in) and stops it at cleanup.
func runListener(t *testing.T, opts forward.Options) (*forward.Listener, *harness.SyncBuffer) {
	t.Helper()
	out := &harness.SyncBuffer{}
	opts.Out, opts.Interval = out, 100*time.Millisecond
	l, err := forward.NewListener(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the listener stopped with %v", err)
		}
	})
	<-l.Ready()
	return l, out
}

// TestListen_SecretSurvivesRestarts: the secret kept for a tenant on this machine is the same
// on every start (a second listener's forwarded event verifies with the first one's secret),
// another tenant has its own, and a rotation replaces it with one that is then kept in turn.
func TestListen_SecretSurvivesRestarts(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	api, err := forward.NewAPI(env().BaseURL, ten.RootKey, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tenantID, err := forward.TenantID(ctx, api)
	if err != nil {
		t.Fatal(err)
	}
	// Each start forwards an event about this endpoint (registering it records none).
	ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": "http://127.0.0.1:9/hook"}).Expect(t, 201)
	dir := t.TempDir()
	first, created, err := forward.SecretStore{Dir: dir}.Secret(env().BaseURL, tenantID, false)
	if err != nil || !created {
		t.Fatalf("first secret: %v created %v", err, created)
	}
	for restart := range 2 {
		secret, created, err := forward.SecretStore{Dir: dir}.Secret(env().BaseURL+"/", tenantID, false)
		if err != nil || created || secret != first {
			t.Fatalf("start %d: secret %q created %v err %v, want the kept %q", restart, secret, created, err, first)
		}
		receiver := harness.NewWebhookReceiver(t, 0)
		l, _ := runListener(t, forward.Options{API: api, ForwardTo: receiver.URL(), Secret: secret})
		if l.Secret() != first {
			t.Fatalf("the listener signs with %q", l.Secret())
		}
		e, err := forward.Trigger(ctx, api, "webhook_endpoint.disabled")
		if err != nil {
			t.Fatal(err)
		}
		got := receiver.Wait(t, 1)[0]
		if got.Event["id"] != e.Id || !harness.VerifyWebhookSignature(first, got.Signature, got.Body) {
			t.Fatalf("start %d: forwarded %s signed %q: not the event, or not verified by the kept secret", restart, got.Body, got.Signature)
		}
	}
	other, _, err := forward.SecretStore{Dir: dir}.Secret(env().BaseURL, tenantID+"x", false)
	if err != nil || other == first {
		t.Fatalf("another tenant's secret %q (%v) is the first tenant's", other, err)
	}
	rotated, created, err := forward.SecretStore{Dir: dir}.Secret(env().BaseURL, tenantID, true)
	if err != nil || !created || rotated == first {
		t.Fatalf("rotation gave %q created %v err %v", rotated, created, err)
	}
	again, _, err := forward.SecretStore{Dir: dir}.Secret(env().BaseURL, tenantID, false)
	if err != nil || again != rotated {
		t.Fatalf("after rotation the kept secret is %q (%v), want %q", again, err, rotated)
	}
}

// TestListen_EventsFilter: with --events webhook_endpoint.*, a member event recorded before an
// endpoint event is not forwarded while the endpoint event is; an undocumented type in the
// filter is refused at start.
func TestListen_EventsFilter(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	api, err := forward.NewAPI(env().BaseURL, ten.RootKey, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := forward.NewListener(forward.Options{API: api, ForwardTo: "http://127.0.0.1:1", Out: &harness.SyncBuffer{}, Events: []string{"claim.redeemed"}}); err == nil {
		t.Fatal("a filter naming the undocumented claim.redeemed was accepted")
	}
	ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": "http://127.0.0.1:9/hook"}).Expect(t, 201)
	ten.Session.Post("/v1/tenants/members", map[string]any{"email": "filter-member@example.com"}).Expect(t, 201)
	receiver := harness.NewWebhookReceiver(t, 0)
	_, out := runListener(t, forward.Options{API: api, ForwardTo: receiver.URL(), Events: []string{"webhook_endpoint.*"}})
	ctx := context.Background()
	skipped, err := forward.Trigger(ctx, api, "member.role_changed")
	if err != nil {
		t.Fatal(err)
	}
	wanted, err := forward.Trigger(ctx, api, "webhook_endpoint.disabled")
	if err != nil {
		t.Fatal(err)
	}
	got := receiver.Wait(t, 1)
	if len(got) != 1 || got[0].Event["id"] != wanted.Id {
		t.Fatalf("forwarded %d events, first %v; want only %s (not %s)", len(got), got[0].Event["id"], wanted.Id, skipped.Id)
	}
	harness.Until(t, "the status printed", out.String, func(s string) bool { return contains(s, wanted.Id+"  → 200") })
	if contains(out.String(), skipped.Id) {
		t.Fatalf("the filtered-out event was printed:\n%s", out.String())
	}
}

// TestListen_Resend: a past event is forwarded again by id, signed with the listener's secret
// and with its own id; another tenant's event id is refused (404) and nothing is sent.
func TestListen_Resend(t *testing.T) {
	t.Parallel()
	ten, stranger := env().NewTenant(t), env().NewTenant(t)
	api, err := forward.NewAPI(env().BaseURL, ten.RootKey, "")
	if err != nil {
		t.Fatal(err)
	}
	strangerAPI, err := forward.NewAPI(env().BaseURL, stranger.RootKey, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	past, err := forward.Trigger(ctx, api, "card.frozen")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := forward.Trigger(ctx, strangerAPI, "card.frozen")
	if err != nil {
		t.Fatal(err)
	}
	receiver := harness.NewWebhookReceiver(t, 0)
	l, err := forward.NewListener(forward.Options{API: api, ForwardTo: receiver.URL(), Out: &harness.SyncBuffer{}, Events: []string{"agent.*"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Resend(ctx, theirs.Id); err == nil || !contains(err.Error(), "404") {
		t.Fatalf("resending another tenant's event: %v, want a 404", err)
	}
	status, err := l.Resend(ctx, past.Id)
	if err != nil || status != 200 {
		t.Fatalf("resend: %d %v", status, err)
	}
	got := receiver.Wait(t, 1)
	if len(got) != 1 || got[0].Event["id"] != past.Id || got[0].Event["type"] != "card.frozen" ||
		!harness.VerifyWebhookSignature(l.Secret(), got[0].Signature, got[0].Body) {
		t.Fatalf("resent %d events: %s", len(got), got[0].Body)
	}
}
