package webhooks

import (
	"context"
	"errors"
	"testing"
	"time"

	"corridor/core"
	"corridor/core/event"
	"corridor/core/webhook"
	"corridor/ports"
)

// memStore runs units of work over one in-memory endpoint, delivery and event.
type memStore struct{ repo *memRepo }

func (s memStore) InTx(ctx context.Context, fn func(context.Context, ports.Tx) error) error {
	return fn(ctx, memTx{repo: s.repo})
}
func (memStore) Ping(context.Context) error { return nil }

type memTx struct {
	ports.Tx
	repo *memRepo
}

func (t memTx) Events() ports.EventRepo { return t.repo }

type memRepo struct {
	ports.EventRepo // anything else panics
	endpoint        webhook.Endpoint
	delivery        webhook.Delivery
	event           event.Event
	attempts        []webhook.Attempt
	recorded        []event.Event
}

func (r *memRepo) LockDeliveryByID(context.Context, string) (webhook.Delivery, error) {
	return r.delivery, nil
}
func (r *memRepo) LockEndpointByID(context.Context, string) (webhook.Endpoint, error) {
	return r.endpoint, nil
}
func (r *memRepo) FindEventByID(context.Context, string) (event.Event, error) { return r.event, nil }
func (r *memRepo) UpdateDelivery(_ context.Context, d webhook.Delivery) error {
	r.delivery = d
	return nil
}
func (r *memRepo) UpdateEndpoint(_ context.Context, e webhook.Endpoint) error {
	r.endpoint = e
	return nil
}
func (r *memRepo) AddAttempt(_ context.Context, a webhook.Attempt) error {
	r.attempts = append(r.attempts, a)
	return nil
}
func (r *memRepo) RecordEvent(_ context.Context, e event.Event) (bool, error) {
	r.recorded = append(r.recorded, e)
	return true, nil
}

type memJobs struct{ scheduled []time.Time }

func (j *memJobs) Enqueue(_ context.Context, _ ports.JobArgs, o ports.JobOptions) error {
	j.scheduled = append(j.scheduled, o.ScheduledAt)
	return nil
}

type clearCipher struct{ ports.Cipher }

func (clearCipher) Encrypt(p []byte, _ string) ([]byte, error) { return p, nil }
func (clearCipher) Decrypt(c []byte, _ string) ([]byte, error) { return c, nil }

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

func newFixture(t *testing.T, now *time.Time, status int) (*Service, *memRepo, *memJobs) {
	t.Helper()
	ep := webhook.Endpoint{ID: core.NewID(core.PrefixWebhookEndpoint), TenantID: "ten_1", Environment: core.EnvLive,
		URL: "https://example.com/hook", Enabled: true, SealedSecret: []byte("whsec_x"), CreatedAt: *now, UpdatedAt: *now}
	ev := event.New("ten_1", core.EnvLive, "agent.suspended", "agt_1", nil, *now)
	repo := &memRepo{endpoint: ep, event: ev, delivery: webhook.Delivery{ID: core.NewID(core.PrefixWebhookDelivery), TenantID: "ten_1",
		Environment: core.EnvLive, EndpointID: ep.ID, EventID: ev.ID, EventType: ev.Type, Status: webhook.DeliveryPending, CreatedAt: *now, UpdatedAt: *now}}
	jobs := &memJobs{}
	s, err := New(Deps{Store: memStore{repo: repo}, Jobs: jobs, Clock: fixedClock{now: now}, Cipher: clearCipher{}, Sender: failingSender{status: status},
		Config: Config{RetryBase: time.Minute, RetryMax: time.Hour, RetryWindow: 72 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	return s, repo, jobs
}

func TestAttempt_FailureSchedulesRetryWithinBackoff(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, repo, jobs := newFixture(t, &now, 503)
	if err := s.Attempt(context.Background(), repo.delivery.ID); err != nil {
		t.Fatal(err)
	}
	if repo.delivery.Status != webhook.DeliveryPending || repo.delivery.Attempts != 1 || len(jobs.scheduled) != 1 {
		t.Fatalf("after a 503: %+v, jobs %v", repo.delivery, jobs.scheduled)
	}
	if d := jobs.scheduled[0].Sub(now); d < 30*time.Second || d > time.Minute {
		t.Fatalf("first retry after %v, want between half and all of a minute", d)
	}
	if repo.endpoint.FailingSince == nil || !repo.endpoint.FailingSince.Equal(now) {
		t.Fatalf("failure run not started: %v", repo.endpoint.FailingSince)
	}
	if a := repo.attempts[0]; a.StatusCode != 503 || a.Succeeded || a.Number != 1 {
		t.Fatalf("attempt: %+v", a)
	}
}

func TestAttempt_EndpointFailingForTheWindowIsDisabledWithAnEvent(t *testing.T) {
	now := time.Date(2026, 1, 4, 0, 0, 1, 0, time.UTC)
	s, repo, jobs := newFixture(t, &now, 0)
	since := now.Add(-72*time.Hour - time.Second)
	repo.endpoint.FailingSince = &since
	if err := s.Attempt(context.Background(), repo.delivery.ID); err != nil {
		t.Fatal(err)
	}
	if repo.endpoint.Enabled || repo.delivery.Status != webhook.DeliveryFailed || len(jobs.scheduled) != 0 {
		t.Fatalf("endpoint %+v, delivery %+v, jobs %v", repo.endpoint, repo.delivery, jobs.scheduled)
	}
	if len(repo.recorded) != 1 || repo.recorded[0].Type != "webhook_endpoint.disabled" || repo.recorded[0].ResourceID != repo.endpoint.ID {
		t.Fatalf("events: %+v", repo.recorded)
	}
	if repo.attempts[0].Error == "" {
		t.Fatal("a timeout is recorded without its error")
	}
}

func TestAttempt_DeliveryPastTheWindowFails(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, repo, jobs := newFixture(t, &now, 500)
	repo.delivery.CreatedAt = now.Add(-72*time.Hour + time.Second) // the next retry would fall past the window
	if err := s.Attempt(context.Background(), repo.delivery.ID); err != nil {
		t.Fatal(err)
	}
	if repo.delivery.Status != webhook.DeliveryFailed || len(jobs.scheduled) != 0 || !repo.endpoint.Enabled {
		t.Fatalf("delivery %+v, jobs %v, endpoint %+v", repo.delivery, jobs.scheduled, repo.endpoint)
	}
}

func TestAttempt_SuccessEndsTheFailureRun(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, repo, jobs := newFixture(t, &now, 204)
	since := now.Add(-time.Hour)
	repo.endpoint.FailingSince = &since
	if err := s.Attempt(context.Background(), repo.delivery.ID); err != nil {
		t.Fatal(err)
	}
	if repo.delivery.Status != webhook.DeliverySucceeded || repo.endpoint.FailingSince != nil || len(jobs.scheduled) != 0 {
		t.Fatalf("delivery %+v, endpoint %+v", repo.delivery, repo.endpoint)
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
