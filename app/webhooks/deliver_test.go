package webhooks

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/webhook"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
)

type failingSender struct{ status int }

func (failingSender) CheckDestination(context.Context, string, bool) error { return nil }
func (f failingSender) Send(context.Context, string, []byte, map[string]string, bool) (int, error) {
	if f.status == 0 {
		return 0, errors.New("timeout")
	}
	return f.status, nil
}

type fixedClock struct{ now *time.Time }

func (c fixedClock) Now() time.Time { return *c.now }

// fixture is one endpoint, one event and its pending delivery in a ports/fake store.
type fixture struct {
	t          *testing.T
	store      *fake.Store
	endpointID string
	deliveryID string
}

// newFixture stores the endpoint and delivery after edit (nil: as they are) changed them.
func newFixture(t *testing.T, now *time.Time, status int, edit func(*webhook.Endpoint, *webhook.Delivery)) (*Service, *fixture) {
	t.Helper()
	ep := webhook.Endpoint{ID: core.NewID(core.PrefixWebhookEndpoint), TenantID: "ten_1", Environment: core.EnvLive,
		URL: "https://example.com/hook", Enabled: true, SealedSecret: []byte("whsec_x"), CreatedAt: *now, UpdatedAt: *now}
	ev := event.New("ten_1", core.EnvLive, "agent.suspended", "agt_1", nil, *now)
	d := webhook.Delivery{ID: core.NewID(core.PrefixWebhookDelivery), TenantID: "ten_1", Environment: core.EnvLive,
		EndpointID: ep.ID, EventID: ev.ID, EventType: ev.Type, Status: webhook.DeliveryPending, CreatedAt: *now, UpdatedAt: *now}
	sealed, err := fake.Cipher{}.Encrypt([]byte("whsec_x"), secretContext(ep.ID))
	if err != nil {
		t.Fatal(err)
	}
	ep.SealedSecret = sealed
	if edit != nil {
		edit(&ep, &d)
	}
	fx := &fixture{t: t, store: fake.NewStore(), endpointID: ep.ID, deliveryID: d.ID}
	err = fx.store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		if err := tx.Events().CreateEndpoint(ctx, ep); err != nil {
			return err
		}
		if _, err := tx.Events().RecordEvent(ctx, ev); err != nil {
			return err
		}
		return tx.Events().CreateDelivery(ctx, d)
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Deps{Store: fx.store, Jobs: fake.Jobs{Store: fx.store}, Clock: fixedClock{now: now}, Cipher: fake.Cipher{}, Sender: failingSender{status: status},
		Config: Config{RetryBase: time.Minute, RetryMax: time.Hour, RetryWindow: 72 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	return s, fx
}

func (fx *fixture) read(fn func(ctx context.Context, r ports.EventRepo) error) {
	fx.t.Helper()
	if err := fx.store.Read(context.Background(), func(ctx context.Context, tx ports.Tx) error { return fn(ctx, tx.Events()) }); err != nil {
		fx.t.Fatal(err)
	}
}

func (fx *fixture) delivery() (d webhook.Delivery) {
	fx.read(func(ctx context.Context, r ports.EventRepo) (err error) {
		d, err = r.LockDeliveryByID(ctx, "ten_1", fx.deliveryID)
		return err
	})
	return d
}

func (fx *fixture) endpoint() (e webhook.Endpoint) {
	fx.read(func(ctx context.Context, r ports.EventRepo) (err error) {
		e, err = r.LockEndpointByID(ctx, "ten_1", fx.endpointID)
		return err
	})
	return e
}

func (fx *fixture) attempts() (a []webhook.Attempt) {
	fx.read(func(ctx context.Context, r ports.EventRepo) error {
		all, err := r.Attempts(ctx, "ten_1", []string{fx.deliveryID})
		a = all[fx.deliveryID]
		return err
	})
	return a
}

// scheduled is when each enqueued retry runs.
func (fx *fixture) scheduled() []time.Time {
	var out []time.Time
	for _, j := range fx.store.Jobs() {
		out = append(out, j.Opts.ScheduledAt)
	}
	return out
}

// TestAttempt_JobWithoutTenantFindsIt: an attempt job enqueued before jobs carried the tenant
// reads its delivery's tenant and sends as any other; the retry it schedules carries the
// tenant; a job whose delivery does not exist fails, as it always did.
func TestAttempt_JobWithoutTenantFindsIt(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, fx := newFixture(t, &now, 503, nil)
	if err := s.Attempt(context.Background(), "", fx.deliveryID); err != nil {
		t.Fatal(err)
	}
	if a := fx.attempts(); len(a) != 1 || a[0].StatusCode != 503 || a[0].TenantID != "ten_1" {
		t.Fatalf("attempts of a job without a tenant: %+v", a)
	}
	jobs := fx.store.Jobs()
	if len(jobs) != 1 {
		t.Fatalf("%d jobs scheduled, want the retry", len(jobs))
	}
	if args, ok := jobs[0].Args.(DeliverArgs); !ok || args.TenantID != "ten_1" || args.DeliveryID != fx.deliveryID {
		t.Fatalf("the retry's arguments: %+v", jobs[0].Args)
	}
	if err := s.Attempt(context.Background(), "", "whd_missing"); !errors.Is(err, webhook.ErrDeliveryNotFound) {
		t.Fatalf("a job of a missing delivery: %v, want WEBHOOK_DELIVERY_NOT_FOUND", err)
	}
}

func TestAttempt_FailureSchedulesRetryWithinBackoff(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, fx := newFixture(t, &now, 503, nil)
	if err := s.Attempt(context.Background(), "ten_1", fx.deliveryID); err != nil {
		t.Fatal(err)
	}
	d, scheduled := fx.delivery(), fx.scheduled()
	if d.Status != webhook.DeliveryPending || d.Attempts != 1 || len(scheduled) != 1 {
		t.Fatalf("after a 503: %+v, jobs %v", d, scheduled)
	}
	if d := scheduled[0].Sub(now); d < 30*time.Second || d > time.Minute {
		t.Fatalf("first retry after %v, want between half and all of a minute", d)
	}
	if ep := fx.endpoint(); ep.FailingSince == nil || !ep.FailingSince.Equal(now) {
		t.Fatalf("failure run not started: %v", ep.FailingSince)
	}
	if a := fx.attempts(); len(a) != 1 || a[0].StatusCode != 503 || a[0].Succeeded || a[0].Number != 1 {
		t.Fatalf("attempts: %+v", a)
	}
}

func TestAttempt_EndpointFailingForTheWindowIsDisabledWithAnEvent(t *testing.T) {
	now := time.Date(2026, 1, 4, 0, 0, 1, 0, time.UTC)
	since := now.Add(-72*time.Hour - time.Second)
	s, fx := newFixture(t, &now, 0, func(e *webhook.Endpoint, _ *webhook.Delivery) { e.FailingSince = &since })
	if err := s.Attempt(context.Background(), "ten_1", fx.deliveryID); err != nil {
		t.Fatal(err)
	}
	fx.expectDisabled()
	// The API's one form of an instant (docs/api.md: six fraction digits), as every other
	// timestamp an event carries.
	if got := fx.store.Events(fx.endpointID)[0].Data["failingSince"]; got != "2026-01-01T00:00:00.000000Z" {
		t.Fatalf("data.failingSince %v, want 2026-01-01T00:00:00.000000Z", got)
	}
	if a := fx.attempts(); len(a) != 1 || a[0].Error == "" {
		t.Fatalf("a timeout is recorded without its error: %+v", a)
	}
}

func TestAttempt_DeliveryPastTheWindowFails(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// The next retry would fall past the window.
	s, fx := newFixture(t, &now, 500, func(_ *webhook.Endpoint, d *webhook.Delivery) { d.CreatedAt = now.Add(-72*time.Hour + time.Second) })
	if err := s.Attempt(context.Background(), "ten_1", fx.deliveryID); err != nil {
		t.Fatal(err)
	}
	if d, ep := fx.delivery(), fx.endpoint(); d.Status != webhook.DeliveryFailed || len(fx.scheduled()) != 0 || !ep.Enabled {
		t.Fatalf("delivery %+v, jobs %v, endpoint %+v", d, fx.scheduled(), ep)
	}
}

// TestAttempt_LastRetryOfAnEndpointFailingThroughoutDisablesIt: a delivery whose last retry
// falls one backoff short of its window's end, on an endpoint that has answered nothing since
// before the delivery's first attempt, disables the endpoint with its event, rather than leave
// it enabled until the next event's first attempt.
func TestAttempt_LastRetryOfAnEndpointFailingThroughoutDisablesIt(t *testing.T) {
	now := time.Date(2026, 1, 4, 0, 0, 0, 0, time.UTC)
	created := now.Add(-72*time.Hour + 10*time.Minute) // the next retry (at least 30 min) is past the window
	since := created.Add(time.Second)                  // the failures began with the first attempt
	s, fx := newFixture(t, &now, 500, func(e *webhook.Endpoint, d *webhook.Delivery) {
		d.CreatedAt, e.FailingSince, d.Attempts = created, &since, 10
	})
	fx.addAttempt(webhook.Attempt{TenantID: "ten_1", DeliveryID: fx.deliveryID, Number: 1, At: since, StatusCode: 500})
	if err := s.Attempt(context.Background(), "ten_1", fx.deliveryID); err != nil {
		t.Fatal(err)
	}
	fx.expectDisabled()
}

// TestAttempt_LastRetryAfterASuccessKeepsTheEndpoint: the same last retry on an endpoint that
// answered since the delivery's first attempt (its failing run began later) only ends the
// delivery.
func TestAttempt_LastRetryAfterASuccessKeepsTheEndpoint(t *testing.T) {
	now := time.Date(2026, 1, 4, 0, 0, 0, 0, time.UTC)
	created := now.Add(-72*time.Hour + 10*time.Minute)
	since := now.Add(-40 * time.Hour)
	s, fx := newFixture(t, &now, 500, func(e *webhook.Endpoint, d *webhook.Delivery) {
		d.CreatedAt, e.FailingSince, d.Attempts = created, &since, 10
	})
	fx.addAttempt(webhook.Attempt{TenantID: "ten_1", DeliveryID: fx.deliveryID, Number: 1, At: created.Add(time.Second), StatusCode: 500})
	if err := s.Attempt(context.Background(), "ten_1", fx.deliveryID); err != nil {
		t.Fatal(err)
	}
	if ep, d := fx.endpoint(), fx.delivery(); !ep.Enabled || d.Status != webhook.DeliveryFailed || len(fx.store.Events(fx.endpointID)) != 0 {
		t.Fatalf("endpoint %+v, delivery %+v", ep, d)
	}
}

func TestAttempt_SuccessEndsTheFailureRun(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	since := now.Add(-time.Hour)
	s, fx := newFixture(t, &now, 204, func(e *webhook.Endpoint, _ *webhook.Delivery) { e.FailingSince = &since })
	if err := s.Attempt(context.Background(), "ten_1", fx.deliveryID); err != nil {
		t.Fatal(err)
	}
	if d, ep := fx.delivery(), fx.endpoint(); d.Status != webhook.DeliverySucceeded || ep.FailingSince != nil || len(fx.scheduled()) != 0 {
		t.Fatalf("delivery %+v, endpoint %+v", d, ep)
	}
}

func TestBackoff_DoublesUpToTheMaximumWithJitter(t *testing.T) {
	s := &Service{cfg: Config{RetryBase: time.Second, RetryMax: 8 * time.Second}}
	for failed, full := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second, 10: 8 * time.Second} {
		for range 50 {
			if d := s.backoff(failed); d < full/2 || d > full {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", failed, d, full/2, full)
			}
		}
	}
}

// crashingSender delivers (the receiver has the event) and then stops the attempt the way a
// killed process does: nothing after the send runs.
type crashingSender struct{ sent *int }

func (crashingSender) CheckDestination(context.Context, string, bool) error { return nil }
func (c crashingSender) Send(context.Context, string, []byte, map[string]string, bool) (int, error) {
	*c.sent++
	panic("process killed after the receiver answered")
}

// TestAttempt_CutOffAttemptIsRecordedAsUnknown: an attempt cut off between the send and its
// record (a crash) leaves its in-flight mark; the next attempt records it first, as attempt 1
// with outcome UNKNOWN at the time it started, then sends again and records itself as attempt
// 2. Before the fix, the cut-off attempt was never recorded: a delivery that arrived twice
// listed one attempt.
func TestAttempt_CutOffAttemptIsRecordedAsUnknown(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 123456789, time.UTC)
	s, fx := newFixture(t, &now, 200, nil)
	sent := 0
	s.sender = crashingSender{sent: &sent}
	func() {
		defer func() { _ = recover() }()
		_ = s.Attempt(context.Background(), "ten_1", fx.deliveryID)
	}()
	cutAt := now.Truncate(time.Microsecond)
	if d := fx.delivery(); sent != 1 || d.AttemptStartedAt == nil || !d.AttemptStartedAt.Equal(cutAt) || len(fx.attempts()) != 0 {
		t.Fatalf("after the cut-off: sent %d, delivery %+v, attempts %+v", sent, d, fx.attempts())
	}
	now = now.Add(15 * time.Second)
	s.sender = failingSender{status: 200}
	if err := s.Attempt(context.Background(), "ten_1", fx.deliveryID); err != nil {
		t.Fatal(err)
	}
	a, d := fx.attempts(), fx.delivery()
	if len(a) != 2 || d.Attempts != 2 || d.Status != webhook.DeliverySucceeded || d.AttemptStartedAt != nil {
		t.Fatalf("delivery %+v, attempts %+v", d, a)
	}
	if a[0].Number != 1 || a[0].Outcome() != webhook.OutcomeUnknown || !a[0].At.Equal(cutAt) || a[0].Error != webhook.CutOffError || a[0].StatusCode != 0 {
		t.Fatalf("the cut-off attempt: %+v", a[0])
	}
	if a[1].Number != 2 || a[1].Outcome() != webhook.OutcomeSucceeded || a[1].StatusCode != 200 {
		t.Fatalf("the attempt after it: %+v", a[1])
	}
}

// TestAttempt_LateRecordOfACutOffAttemptKeepsTheNextMark: a run taken as cut off that ends
// after a later run started records its own outcome too, and leaves the later run's mark for
// that run's record.
func TestAttempt_LateRecordOfACutOffAttemptKeepsTheNextMark(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, fx := newFixture(t, &now, 503, nil)
	first, ok, err := s.readAttempt(context.Background(), "ten_1", fx.deliveryID)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	now = now.Add(time.Minute)
	second, ok, err := s.readAttempt(context.Background(), "ten_1", fx.deliveryID) // the first taken as cut off
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if err := s.recordAttempt(context.Background(), webhook.Attempt{TenantID: "ten_1", DeliveryID: fx.deliveryID, At: first.startedAt, StatusCode: 503}); err != nil {
		t.Fatal(err)
	}
	if d := fx.delivery(); d.AttemptStartedAt == nil || !d.AttemptStartedAt.Equal(second.startedAt) || d.Attempts != 2 {
		t.Fatalf("after the late record: %+v", d)
	}
	if err := s.recordAttempt(context.Background(), webhook.Attempt{TenantID: "ten_1", DeliveryID: fx.deliveryID, At: second.startedAt, StatusCode: 503}); err != nil {
		t.Fatal(err)
	}
	a, d := fx.attempts(), fx.delivery()
	if len(a) != 3 || a[0].Outcome() != webhook.OutcomeUnknown || a[1].Outcome() != webhook.OutcomeFailed || a[2].Outcome() != webhook.OutcomeFailed || d.AttemptStartedAt != nil {
		t.Fatalf("delivery %+v, attempts %+v", d, a)
	}
}

// TestDispatch_EndpointReceivesEventsFromItsRegistration: the fan-out delivers an event only to
// the endpoints registered (or last re-enabled) by the event's creation, however late it runs.
// The tenant has endpoint A throughout, so its events wait for the fan-out: one recorded before
// B was registered, and one recorded while B was disabled, reach A alone.
func TestDispatch_EndpointReceivesEventsFromItsRegistration(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	store := fake.NewStore()
	s, err := New(Deps{Store: store, Jobs: fake.Jobs{Store: store}, Clock: fixedClock{now: &now}, Cipher: fake.Cipher{},
		Sender: failingSender{status: 200}, Config: Config{RetryBase: time.Minute, RetryMax: time.Hour, RetryWindow: 72 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	p := auth.Principal{Kind: auth.KindAPIKey, TenantID: "ten_1", Environment: core.EnvLive, Scopes: []auth.Scope{auth.ScopeRoot}}
	endpoint := func() string {
		ep := webhook.Endpoint{ID: core.NewID(core.PrefixWebhookEndpoint), TenantID: "ten_1", Environment: core.EnvLive,
			URL: "https://example.com/hook", Enabled: true, SealedSecret: []byte("sealed"), EnabledAt: now, CreatedAt: now, UpdatedAt: now}
		if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return tx.Events().CreateEndpoint(ctx, ep) }); err != nil {
			t.Fatal(err)
		}
		return ep.ID
	}
	record := func(resource string) string {
		ev := event.New("ten_1", core.EnvLive, "agent.suspended", resource, nil, now)
		if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
			_, err := tx.Events().RecordEvent(ctx, ev)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ev.ID
	}
	enable := func(id string, on bool) {
		if _, _, err := s.UpdateEndpoint(ctx, p, id, EndpointPatch{Enabled: &on}); err != nil {
			t.Fatal(err)
		}
	}
	step := func() { now = now.Add(time.Second) }

	a := endpoint()
	step()
	before := record("agt_1") // B does not exist yet
	step()
	b := endpoint()
	enable(b, false)
	step()
	disabled := record("agt_2") // B is disabled
	step()
	enable(b, true)
	atReenable := record("agt_3") // same instant as the re-enabling: B receives it
	step()
	after := record("agt_4")
	if _, err := s.Dispatch(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{before: {a}, disabled: {a}, atReenable: {a, b}, after: {a, b}}
	err = store.Read(ctx, func(ctx context.Context, tx ports.Tx) error {
		for ev, endpoints := range want {
			ds, err := tx.Events().EventDeliveries(ctx, "ten_1", core.EnvLive, ev)
			if err != nil {
				return err
			}
			got := map[string]bool{}
			for _, d := range ds {
				got[d.EndpointID] = true
			}
			if len(got) != len(endpoints) || len(ds) != len(endpoints) {
				t.Errorf("event %s went to %v, want %v", ev, got, endpoints)
			}
			for _, id := range endpoints {
				if !got[id] {
					t.Errorf("event %s did not go to %s (got %v)", ev, id, got)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// addAttempt records an earlier attempt of the fixture's delivery.
func (fx *fixture) addAttempt(a webhook.Attempt) {
	fx.t.Helper()
	if err := fx.store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error { return tx.Events().AddAttempt(ctx, a) }); err != nil {
		fx.t.Fatal(err)
	}
}

// expectDisabled fails unless the endpoint is disabled, its delivery FAILED with nothing
// scheduled, and one webhook_endpoint.disabled event recorded.
func (fx *fixture) expectDisabled() {
	fx.t.Helper()
	if ep, d := fx.endpoint(), fx.delivery(); ep.Enabled || d.Status != webhook.DeliveryFailed || len(fx.scheduled()) != 0 {
		fx.t.Fatalf("endpoint %+v, delivery %+v, jobs %v", ep, d, fx.scheduled())
	}
	if recorded := fx.store.Events(fx.endpointID); len(recorded) != 1 || recorded[0].Type != "webhook_endpoint.disabled" {
		fx.t.Fatalf("events: %+v", recorded)
	}
}
