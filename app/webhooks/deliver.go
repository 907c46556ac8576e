package webhooks

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/timestamp"
	"github.com/corridorhq/corridor/core/webhook"
	"github.com/corridorhq/corridor/ports"
)

// Bounds of the delivery jobs.
const (
	dispatchBatch       = 100
	dispatchMaxBatches  = 10
	jobMaxAttempts      = 10 // River's own retries of one attempt job (a database outage), not of the receiver
	maxResponseSnippet  = 256
	disabledEventKind   = "webhook_endpoint"
	disabledEventStatus = "DISABLED"
)

// RegisterWorkers adds the fan-out and delivery workers.
func (s *Service) RegisterWorkers(workers *river.Workers) {
	river.AddWorker(workers, &DispatchWorker{Service: s})
	// An attempt's run leaves room for the receiver's time-out and the bookkeeping around it.
	kernel.AddWorker(workers, s.cfg.Timeout+30*time.Second, func(ctx context.Context, a DeliverArgs) error {
		return s.Attempt(ctx, a.TenantID, a.DeliveryID)
	})
}

// PeriodicJobs is the fan-out pass.
func (s *Service) PeriodicJobs() []*river.PeriodicJob {
	every := s.cfg.DispatchInterval
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(every), func() (river.JobArgs, *river.InsertOpts) {
			// Passes may overlap: each claims a tenant's events with SKIP LOCKED.
			return DispatchArgs{}, &river.InsertOpts{MaxAttempts: 3}
		}, &river.PeriodicJobOpts{RunOnStart: true}),
	}
}

// DispatchArgs is one fan-out pass: new events become deliveries to the endpoints that
// subscribe to them.
type DispatchArgs struct{}

// Kind names the job.
func (DispatchArgs) Kind() string { return "webhooks.dispatch" }

// DispatchWorker runs the fan-out pass.
type DispatchWorker struct {
	river.WorkerDefaults[DispatchArgs]
	Service *Service
}

// Work fans out up to dispatchMaxBatches batches of events.
func (w *DispatchWorker) Work(ctx context.Context, _ *river.Job[DispatchArgs]) error {
	for range dispatchMaxBatches {
		n, err := w.Service.Dispatch(ctx)
		if err != nil || n == 0 {
			return err
		}
	}
	return nil
}

// Dispatch fans new events out to endpoints, tenant by tenant: it reads which tenants have
// events to dispatch (no lock), then claims each tenant's batch in a unit of work of its own,
// so that on Citus every claim is on one tenant's shard (a locking claim over every shard is
// what Citus refuses). A tenant's events are marked dispatched with their deliveries and
// delivery jobs, or not at all; a pass running beside it skips the events it holds. It returns
// how many events it took.
func (s *Service) Dispatch(ctx context.Context) (int, error) {
	tenants, err := s.undispatchedTenants(ctx)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, tenantID := range tenants {
		n, err := s.dispatchTenant(ctx, tenantID)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

func (s *Service) undispatchedTenants(ctx context.Context) ([]string, error) {
	var tenants []string
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		tenants, err = tx.Events().TenantsWithUndispatchedEvents(ctx, dispatchBatch)
		return err
	})
	return tenants, err
}

// dispatchTenant fans one batch of a tenant's new events out to its endpoints in one unit of
// work.
func (s *Service) dispatchTenant(ctx context.Context, tenantID string) (int, error) {
	var n int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		events, err := tx.Events().ClaimUndispatchedEvents(ctx, tenantID, dispatchBatch)
		if err != nil {
			return err
		}
		n = len(events)
		endpoints := map[string][]webhook.Endpoint{}
		for _, e := range events {
			key := e.TenantID + "/" + string(e.Environment)
			list, ok := endpoints[key]
			if !ok {
				if list, err = tx.Events().EnabledEndpoints(ctx, e.TenantID, e.Environment); err != nil {
					return err
				}
				endpoints[key] = list
			}
			for _, ep := range list {
				if !ep.Receives(e.Type, e.CreatedAt) {
					continue
				}
				if _, err := s.newDelivery(ctx, tx, ep, e.ID, e.Type, ""); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return n, err
}

// newDelivery records a delivery of an event to an endpoint and enqueues its first attempt now.
func (s *Service) newDelivery(ctx context.Context, tx txView, ep webhook.Endpoint, eventID, eventType, redeliveryOf string) (webhook.Delivery, error) {
	now := s.clock.Now().UTC()
	d := webhook.Delivery{ID: core.NewID(core.PrefixWebhookDelivery), TenantID: ep.TenantID, Environment: ep.Environment,
		EndpointID: ep.ID, EventID: eventID, EventType: eventType, Status: webhook.DeliveryPending, RedeliveryOf: redeliveryOf,
		NextAttemptAt: &now, CreatedAt: now, UpdatedAt: now}
	if err := tx.Events().CreateDelivery(ctx, d); err != nil {
		return d, err
	}
	return d, s.jobs.Enqueue(ctx, DeliverArgs{TenantID: d.TenantID, DeliveryID: d.ID}, ports.JobOptions{MaxAttempts: jobMaxAttempts})
}

// DeliverArgs is one attempt of a delivery. The tenant routes its statements to the tenant's
// shard on Citus; a job enqueued before it was carried has none and looks it up.
type DeliverArgs struct {
	TenantID   string `json:"tenantId,omitempty"`
	DeliveryID string `json:"deliveryId"`
}

// Kind names the job.
func (DeliverArgs) Kind() string { return "webhooks.deliver" }

// attemptInput is what one attempt needs, read before the request is sent.
type attemptInput struct {
	delivery webhook.Delivery
	endpoint webhook.Endpoint
	body     []byte
	secret   string
	// startedAt is the attempt's in-flight mark and its recorded time.
	startedAt time.Time
}

// Attempt sends a pending delivery once, outside any unit of work, then records the outcome:
// a 2xx ends it; anything else schedules the next attempt with backoff and jitter, until the
// retry window ends; an endpoint that has failed for the whole window is disabled, with an
// event.
func (s *Service) Attempt(ctx context.Context, tenantID, deliveryID string) error {
	if tenantID == "" { // a job enqueued before jobs carried the tenant; a missing delivery fails as it did
		if err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
			var err error
			tenantID, err = tx.Events().DeliveryTenant(ctx, deliveryID)
			return err
		}); err != nil {
			return err
		}
	}
	in, ok, err := s.readAttempt(ctx, tenantID, deliveryID)
	if err != nil || !ok {
		return err
	}
	at := in.startedAt
	headers := map[string]string{"Content-Type": "application/json", "User-Agent": "Corridor-Webhooks/1",
		webhook.SignatureHeader: webhook.Sign(in.secret, at, in.body), "Corridor-Event-Id": in.delivery.EventID,
		"Corridor-Delivery-Id": in.delivery.ID}
	sendCtx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	status, sendErr := s.sender.Send(sendCtx, in.endpoint.URL, in.body, headers, s.allowPrivate(in.endpoint.Environment))
	cancel()
	kernel.CrashPoint(kernel.CrashWebhookDelivered)
	took := s.clock.Now().Sub(at)
	result := webhook.Attempt{TenantID: in.delivery.TenantID, DeliveryID: in.delivery.ID, At: at, StatusCode: status, DurationMs: took.Milliseconds(),
		Succeeded: sendErr == nil && status >= 200 && status < 300}
	if sendErr != nil {
		result.Error = truncate(sendErr.Error(), maxResponseSnippet)
	}
	return s.recordAttempt(ctx, result)
}

// readAttempt loads the delivery, its endpoint and event; ok is false when there is nothing to
// send (the delivery is no longer pending, or its endpoint is gone or disabled: then it fails).
func (s *Service) readAttempt(ctx context.Context, tenantID, deliveryID string) (attemptInput, bool, error) {
	var in attemptInput
	ok := false
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		d, err := tx.Events().LockDeliveryByID(ctx, tenantID, deliveryID)
		if err != nil || d.Status != webhook.DeliveryPending {
			return err
		}
		if err := recordCutOff(ctx, tx, &d); err != nil {
			return err
		}
		now := s.clock.Now().UTC().Truncate(time.Microsecond) // the database's precision: the record finds its mark by it
		ep, err := tx.Events().LockEndpointByID(ctx, d.TenantID, d.EndpointID)
		if errors.Is(err, webhook.ErrEndpointNotFound) || (err == nil && !ep.Enabled) {
			d.Status, d.NextAttemptAt, d.UpdatedAt = webhook.DeliveryFailed, nil, now
			return tx.Events().UpdateDelivery(ctx, d)
		}
		if err != nil {
			return err
		}
		// Marked in flight before the request leaves: a crash between the send and its record
		// leaves the mark for the next attempt to find (recordCutOff).
		d.AttemptStartedAt, d.UpdatedAt = &now, now
		if err := tx.Events().UpdateDelivery(ctx, d); err != nil {
			return err
		}
		e, err := tx.Events().FindEventByID(ctx, d.TenantID, d.EventID)
		if err != nil {
			return err
		}
		secret, err := s.cipher.Decrypt(ep.SealedSecret, secretContext(ep.ID))
		if err != nil {
			return err
		}
		body, err := Payload(e)
		if err != nil {
			return err
		}
		in, ok = attemptInput{delivery: d, endpoint: ep, body: body, secret: string(secret), startedAt: now}, true
		return nil
	})
	return in, ok, err
}

// recordCutOff records the attempt a delivery's in-flight mark stands for, when the mark is
// still there: that attempt was cut off (the process died between the send and its record, or
// the record failed), so the receiver may or may not have the event. It is listed among the
// delivery's attempts with an unknown outcome rather than silently lost; the delivery goes on
// (at least once: receivers deduplicate on the event id).
func recordCutOff(ctx context.Context, tx txView, d *webhook.Delivery) error {
	if d.AttemptStartedAt == nil {
		return nil
	}
	d.Attempts++
	cut := webhook.Attempt{TenantID: d.TenantID, DeliveryID: d.ID, Number: d.Attempts, At: *d.AttemptStartedAt, Error: webhook.CutOffError, Unknown: true}
	d.AttemptStartedAt = nil
	return tx.Events().AddAttempt(ctx, cut)
}

// recordAttempt stores an attempt and moves the delivery and endpoint on.
func (s *Service) recordAttempt(ctx context.Context, a webhook.Attempt) error {
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		d, err := tx.Events().LockDeliveryByID(ctx, a.TenantID, a.DeliveryID)
		if err != nil || d.Status != webhook.DeliveryPending {
			return err
		}
		ep, err := tx.Events().LockEndpointByID(ctx, d.TenantID, d.EndpointID)
		if err != nil && !errors.Is(err, webhook.ErrEndpointNotFound) {
			return err
		}
		endpointGone := err != nil
		now := s.clock.Now().UTC()
		if d.AttemptStartedAt != nil && d.AttemptStartedAt.Equal(a.At) {
			d.AttemptStartedAt = nil
		} // else a later run took this attempt as cut off and is in flight itself: its mark stays
		d.Attempts++
		a.Number = d.Attempts
		if err := tx.Events().AddAttempt(ctx, a); err != nil {
			return err
		}
		d.UpdatedAt, d.NextAttemptAt = now, nil
		switch {
		case a.Succeeded:
			d.Status = webhook.DeliverySucceeded
			if !endpointGone && ep.FailingSince != nil {
				ep.FailingSince, ep.UpdatedAt = nil, now
				if err := tx.Events().UpdateEndpoint(ctx, ep); err != nil {
					return err
				}
			}
		case endpointGone || !ep.Enabled:
			d.Status = webhook.DeliveryFailed
		default:
			if err := s.afterFailure(ctx, tx, &d, ep, now); err != nil {
				return err
			}
		}
		return tx.Events().UpdateDelivery(ctx, d)
	})
}

// afterFailure schedules the next attempt, or ends the delivery when the window is over, and
// disables an endpoint that has failed for the whole window.
func (s *Service) afterFailure(ctx context.Context, tx txView, d *webhook.Delivery, ep webhook.Endpoint, now time.Time) error {
	if ep.FailingSince == nil {
		ep.FailingSince = &now
		ep.UpdatedAt = now
		if err := tx.Events().UpdateEndpoint(ctx, ep); err != nil {
			return err
		}
	} else if now.Sub(*ep.FailingSince) >= s.cfg.RetryWindow {
		return s.disableEndpoint(ctx, tx, d, ep, now)
	}
	next := now.Add(s.backoff(d.Attempts))
	if next.After(d.CreatedAt.Add(s.cfg.RetryWindow)) {
		d.Status = webhook.DeliveryFailed
		if whole, err := s.failedThroughout(ctx, tx, *d, ep, now); err != nil || !whole {
			return err
		}
		return s.disableEndpoint(ctx, tx, d, ep, now)
	}
	d.NextAttemptAt = &next
	return s.jobs.Enqueue(ctx, DeliverArgs{TenantID: d.TenantID, DeliveryID: d.ID}, ports.JobOptions{ScheduledAt: next, MaxAttempts: jobMaxAttempts})
}

// failedThroughout reports whether a delivery that ran out its window leaves its endpoint
// failed for the whole window, as far as attempts can show: the endpoint has answered nothing
// since before the delivery's first attempt, and that run of failures spans at least half the
// window. A delivery's last retry falls one backoff short of its window's end, so without this
// an endpoint whose only delivery ran out would stay enabled until the next event's first
// attempt disabled it. The half keeps a delivery first tried late in its window (a long
// backlog) from disabling an endpoint on one failure.
func (s *Service) failedThroughout(ctx context.Context, tx txView, d webhook.Delivery, ep webhook.Endpoint, now time.Time) (bool, error) {
	if ep.FailingSince == nil || now.Sub(*ep.FailingSince) < s.cfg.RetryWindow/2 {
		return false, nil
	}
	attempts, err := tx.Events().Attempts(ctx, d.TenantID, []string{d.ID})
	if err != nil || len(attempts[d.ID]) == 0 {
		return false, err
	}
	return !ep.FailingSince.After(attempts[d.ID][0].At), nil
}

// disableEndpoint disables an endpoint that failed for the whole retry window, ends the
// delivery, and records webhook_endpoint.disabled.
func (s *Service) disableEndpoint(ctx context.Context, tx txView, d *webhook.Delivery, ep webhook.Endpoint, now time.Time) error {
	ep.Enabled, ep.DisabledReason, ep.UpdatedAt = false, "failing for the whole retry window", now
	if err := tx.Events().UpdateEndpoint(ctx, ep); err != nil {
		return err
	}
	d.Status = webhook.DeliveryFailed
	return kernel.RecordEvent(ctx, tx, ep.TenantID, ep.Environment, disabledEventKind, ep.ID, disabledEventStatus, 0, now,
		map[string]any{"url": ep.URL, "failingSince": timestamp.Format(*ep.FailingSince)})
}

// backoff is the delay after the given number of failed attempts: RetryBase doubled per
// attempt, at most RetryMax, jittered to a uniformly drawn half to all of it so that many
// deliveries failing together do not retry together.
func (s *Service) backoff(failed int) time.Duration {
	d := s.cfg.RetryBase
	for i := 1; i < failed && d < s.cfg.RetryMax; i++ {
		d *= 2
	}
	d = min(d, s.cfg.RetryMax)
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1)) //nolint:gosec // jitter, not a secret
}

// Payload is the body every delivery of an event carries (docs/webhooks.md): id, type, and the
// documented payload fields event, data and created_at, each instant in the API's one form
// (core/timestamp), so the bytes a receiver verifies are the bytes GET
// /v1/events/{id}/payload shows.
func Payload(e event.Event) ([]byte, error) {
	return timestamp.Marshal(map[string]any{"id": e.ID, "type": e.Type, "event": e.Type, "data": e.Data,
		"created_at": e.CreatedAt})
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
