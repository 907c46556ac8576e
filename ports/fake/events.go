package fake

import (
	"context"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/webhook"
	"github.com/corridorhq/corridor/ports"
)

// eventTables are the events capability's rows: events (with whether each was fanned out),
// webhook endpoints (deleted ones kept aside), deliveries and their attempts.
type eventTables struct {
	events     table[event.Event]
	dispatched map[string]bool
	endpoints  table[webhook.Endpoint]
	deleted    map[string]bool
	deliveries table[webhook.Delivery]
	attempts   map[string][]webhook.Attempt
}

func newEventTables() eventTables {
	return eventTables{events: newTable[event.Event](), dispatched: map[string]bool{}, endpoints: newTable[webhook.Endpoint](),
		deleted: map[string]bool{}, deliveries: newTable[webhook.Delivery](), attempts: map[string][]webhook.Attempt{}}
}

func (e eventTables) clone() eventTables {
	out := eventTables{events: e.events.clone(), dispatched: copyOf(e.dispatched), endpoints: e.endpoints.clone(),
		deleted: copyOf(e.deleted), deliveries: e.deliveries.clone(), attempts: map[string][]webhook.Attempt{}}
	for k, v := range e.attempts {
		out.attempts[k] = append([]webhook.Attempt(nil), v...)
	}
	return out
}

type eventRepo struct{ s *Store }

var _ ports.EventRepo = eventRepo{}

func (r eventRepo) t() *eventTables { return &r.s.state.events }

// RecordEvent skips an event whose type equals the resource's latest, unless it is Repeatable;
// with no enabled endpoint of its tenant's environment it is recorded fanned out.
func (r eventRepo) RecordEvent(_ context.Context, e event.Event) (bool, error) {
	if err := e.Validate(); err != nil {
		return false, err
	}
	if !e.Repeatable {
		same := r.t().events.filter(func(x event.Event) bool { return x.ResourceID == e.ResourceID }, true)
		if len(same) > 0 && same[0].Type == e.Type {
			return false, nil
		}
	}
	e.Repeatable = false // not stored
	if len(r.tenantEndpoints(e.TenantID, e.Environment, true, false)) == 0 {
		r.t().dispatched[e.ID] = true // no endpoint to fan it out to: recorded fanned out
	}
	return true, r.t().events.insert(e.ID, e)
}

func (r eventRepo) FindEvent(_ context.Context, tenantID string, env core.Environment, id string) (event.Event, error) {
	e, ok := r.t().events.rows[id]
	if !ok || e.TenantID != tenantID || e.Environment != env {
		return event.Event{}, event.ErrNotFound
	}
	return e, nil
}

func (r eventRepo) FindEventByID(_ context.Context, tenantID, id string) (event.Event, error) {
	e, ok := r.t().events.rows[id]
	if !ok || e.TenantID != tenantID {
		return event.Event{}, event.ErrNotFound
	}
	return e, nil
}

func (r eventRepo) ListEvents(_ context.Context, f ports.EventFilter, p ports.Page) ([]event.Event, int, error) {
	family, isFamily := strings.CutSuffix(f.Type, ".*")
	rows := r.t().events.filter(func(e event.Event) bool {
		switch {
		case e.TenantID != f.TenantID || e.Environment != f.Environment:
			return false
		case isFamily && !strings.HasPrefix(e.Type, family+"."), !isFamily && f.Type != "" && e.Type != f.Type:
			return false
		case f.ResourceID != "" && e.ResourceID != f.ResourceID:
			return false
		}
		return (f.From.IsZero() || !e.CreatedAt.Before(f.From)) && (f.To.IsZero() || e.CreatedAt.Before(f.To))
	}, true)
	out, total := page(rows, p)
	return out, total, nil
}

func (r eventRepo) TenantsWithUndispatchedEvents(_ context.Context, limit int) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, e := range r.t().events.filter(func(e event.Event) bool { return !r.t().dispatched[e.ID] }, false) {
		if !seen[e.TenantID] && len(out) < limit {
			seen[e.TenantID], out = true, append(out, e.TenantID)
		}
	}
	return out, nil
}

func (r eventRepo) ClaimUndispatchedEvents(_ context.Context, tenantID string, limit int) ([]event.Event, error) {
	rows := r.t().events.filter(func(e event.Event) bool { return !r.t().dispatched[e.ID] && e.TenantID == tenantID }, false)
	rows, _ = page(rows, ports.Page{Take: limit})
	for _, e := range rows {
		r.t().dispatched[e.ID] = true
	}
	return rows, nil
}

func (r eventRepo) CreateEndpoint(_ context.Context, e webhook.Endpoint) error {
	return r.t().endpoints.insert(e.ID, e)
}

func (r eventRepo) live(id string) (webhook.Endpoint, bool) {
	e, ok := r.t().endpoints.rows[id]
	return e, ok && !r.t().deleted[id]
}

func (r eventRepo) FindEndpoint(_ context.Context, tenantID string, env core.Environment, id string) (webhook.Endpoint, error) {
	e, ok := r.live(id)
	if !ok || e.TenantID != tenantID || e.Environment != env {
		return webhook.Endpoint{}, webhook.ErrEndpointNotFound
	}
	return e, nil
}

func (r eventRepo) LockEndpointByID(_ context.Context, tenantID, id string) (webhook.Endpoint, error) {
	e, ok := r.live(id)
	if !ok || e.TenantID != tenantID {
		return webhook.Endpoint{}, webhook.ErrEndpointNotFound
	}
	return e, nil
}

func (r eventRepo) tenantEndpoints(tenantID string, env core.Environment, enabledOnly, newestFirst bool) []webhook.Endpoint {
	return r.t().endpoints.filter(func(e webhook.Endpoint) bool {
		return e.TenantID == tenantID && e.Environment == env && !r.t().deleted[e.ID] && (!enabledOnly || e.Enabled)
	}, newestFirst)
}

func (r eventRepo) ListEndpoints(_ context.Context, tenantID string, env core.Environment, p ports.Page) ([]webhook.Endpoint, int, error) {
	out, total := page(r.tenantEndpoints(tenantID, env, false, true), p)
	return out, total, nil
}

func (r eventRepo) EnabledEndpoints(_ context.Context, tenantID string, env core.Environment) ([]webhook.Endpoint, error) {
	out, _ := page(r.tenantEndpoints(tenantID, env, true, false), ports.Page{Take: webhook.MaxEndpoints})
	return out, nil
}

func (r eventRepo) CountEndpoints(_ context.Context, tenantID string, env core.Environment) (int, error) {
	return len(r.tenantEndpoints(tenantID, env, false, false)), nil
}

func (r eventRepo) UpdateEndpoint(_ context.Context, e webhook.Endpoint) error {
	return r.t().endpoints.update(e.ID, e)
}

// DeleteEndpoint disables and hides the endpoint and fails its pending deliveries.
func (r eventRepo) DeleteEndpoint(_ context.Context, tenantID string, env core.Environment, id string, at time.Time) error {
	e, ok := r.live(id)
	if !ok || e.TenantID != tenantID || e.Environment != env {
		return webhook.ErrEndpointNotFound
	}
	e.Enabled, e.UpdatedAt = false, at
	r.t().endpoints.rows[id] = e
	r.t().deleted[id] = true
	for _, d := range r.t().deliveries.filter(func(d webhook.Delivery) bool {
		return d.EndpointID == id && d.Status == webhook.DeliveryPending
	}, false) {
		d.Status, d.NextAttemptAt, d.UpdatedAt = webhook.DeliveryFailed, nil, at
		r.t().deliveries.rows[d.ID] = d
	}
	return nil
}

func (r eventRepo) CreateDelivery(_ context.Context, d webhook.Delivery) error {
	return r.t().deliveries.insert(d.ID, d)
}

func (r eventRepo) FindDelivery(_ context.Context, tenantID string, env core.Environment, id string) (webhook.Delivery, error) {
	d, ok := r.t().deliveries.rows[id]
	if !ok || d.TenantID != tenantID || d.Environment != env {
		return webhook.Delivery{}, webhook.ErrDeliveryNotFound
	}
	return d, nil
}

func (r eventRepo) LockDeliveryByID(_ context.Context, tenantID, id string) (webhook.Delivery, error) {
	d, ok := r.t().deliveries.rows[id]
	if !ok || d.TenantID != tenantID {
		return webhook.Delivery{}, webhook.ErrDeliveryNotFound
	}
	return d, nil
}

func (r eventRepo) DeliveryTenant(_ context.Context, id string) (string, error) {
	d, ok := r.t().deliveries.rows[id]
	if !ok {
		return "", webhook.ErrDeliveryNotFound
	}
	return d.TenantID, nil
}

// UpdateDelivery writes the columns the Postgres repository writes: status, attempts, the
// next attempt, the attempt in flight and the update time.
func (r eventRepo) UpdateDelivery(_ context.Context, d webhook.Delivery) error {
	stored, ok := r.t().deliveries.rows[d.ID]
	if !ok {
		return webhook.ErrDeliveryNotFound
	}
	stored.Status, stored.Attempts, stored.NextAttemptAt, stored.UpdatedAt = d.Status, d.Attempts, d.NextAttemptAt, d.UpdatedAt
	stored.AttemptStartedAt = d.AttemptStartedAt
	r.t().deliveries.rows[d.ID] = stored
	return nil
}

func (r eventRepo) ListDeliveries(_ context.Context, tenantID, endpointID string, p ports.Page) ([]webhook.Delivery, int, error) {
	rows := r.t().deliveries.filter(func(d webhook.Delivery) bool { return d.EndpointID == endpointID && d.TenantID == tenantID }, true)
	out, total := page(rows, p)
	return out, total, nil
}

func (r eventRepo) EventDeliveries(_ context.Context, tenantID string, env core.Environment, eventID string) ([]webhook.Delivery, error) {
	rows := r.t().deliveries.filter(func(d webhook.Delivery) bool {
		return d.EventID == eventID && d.TenantID == tenantID && d.Environment == env
	}, true)
	out, _ := page(rows, ports.Page{Take: ports.MaxTake})
	return out, nil
}

func (r eventRepo) AddAttempt(_ context.Context, a webhook.Attempt) error {
	r.t().attempts[a.DeliveryID] = append(r.t().attempts[a.DeliveryID], a)
	return nil
}

func (r eventRepo) Attempts(_ context.Context, tenantID string, deliveryIDs []string) (map[string][]webhook.Attempt, error) {
	out := map[string][]webhook.Attempt{}
	for _, id := range deliveryIDs {
		if a := r.t().attempts[id]; len(a) > 0 && a[0].TenantID == tenantID {
			out[id] = append([]webhook.Attempt(nil), a...)
		}
	}
	return out, nil
}

// Events returns every committed event of a resource, oldest first, for assertions.
func (s *Store) Events(resourceID string) []event.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.events.events.filter(func(e event.Event) bool { return e.ResourceID == resourceID }, false)
}
