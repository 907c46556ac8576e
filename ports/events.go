package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/webhook"
)

// EventFilter selects events of one tenant and environment.
type EventFilter struct {
	TenantID    string
	Environment core.Environment
	Type        string    // "" = every type; a trailing ".*" selects a family ("card_authorization.*")
	From        time.Time // zero = no lower bound (inclusive)
	To          time.Time // zero = no upper bound (exclusive)
	ResourceID  string    // "" = every resource; else the events of one object (its state history)
}

// EventRepo stores partner-facing events, webhook endpoints and their deliveries.
type EventRepo interface {
	// RecordEvent inserts e unless the resource's latest event already has e's type (an update
	// that left the status as it was): then nothing changes and recorded is false. A
	// Repeatable event is always inserted. When the tenant's environment has no enabled
	// endpoint as it is inserted, it is recorded fanned out already (nothing to deliver it to).
	RecordEvent(ctx context.Context, e event.Event) (recorded bool, err error)
	// FindEvent is scoped by tenant and environment; another tenant's event is EVENT_NOT_FOUND.
	FindEvent(ctx context.Context, tenantID string, env core.Environment, id string) (event.Event, error)
	// FindEventByID reads a tenant's event by id in any environment (the delivery job).
	FindEventByID(ctx context.Context, tenantID, id string) (event.Event, error)
	// ListEvents lists newest first.
	ListEvents(ctx context.Context, f EventFilter, page Page) ([]event.Event, int, error)
	// TenantsWithUndispatchedEvents lists up to limit tenants that have events not yet fanned
	// out to webhook endpoints (a read, no lock: the claim is per tenant).
	TenantsWithUndispatchedEvents(ctx context.Context, limit int) ([]string, error)
	// ClaimUndispatchedEvents locks up to limit of the tenant's events not yet fanned out to
	// webhook endpoints, oldest first, skipping rows another transaction holds, and marks them
	// dispatched.
	ClaimUndispatchedEvents(ctx context.Context, tenantID string, limit int) ([]event.Event, error)

	CreateEndpoint(ctx context.Context, e webhook.Endpoint) error
	// FindEndpoint: another tenant's endpoint is WEBHOOK_ENDPOINT_NOT_FOUND.
	FindEndpoint(ctx context.Context, tenantID string, env core.Environment, id string) (webhook.Endpoint, error)
	// LockEndpointByID locks a tenant's endpoint by id in any environment (the delivery job).
	LockEndpointByID(ctx context.Context, tenantID, id string) (webhook.Endpoint, error)
	ListEndpoints(ctx context.Context, tenantID string, env core.Environment, page Page) ([]webhook.Endpoint, int, error)
	// EnabledEndpoints lists the enabled endpoints of a tenant and environment.
	EnabledEndpoints(ctx context.Context, tenantID string, env core.Environment) ([]webhook.Endpoint, error)
	// CountEndpoints counts the tenant's endpoints in env after locking their count until the
	// transaction ends, so a count and the insert it allows are one step for parallel requests.
	CountEndpoints(ctx context.Context, tenantID string, env core.Environment) (int, error)
	UpdateEndpoint(ctx context.Context, e webhook.Endpoint) error
	// DeleteEndpoint removes the endpoint; its deliveries stay, failed if still pending.
	DeleteEndpoint(ctx context.Context, tenantID string, env core.Environment, id string, at time.Time) error

	CreateDelivery(ctx context.Context, d webhook.Delivery) error
	// FindDelivery: another tenant's delivery is WEBHOOK_DELIVERY_NOT_FOUND.
	FindDelivery(ctx context.Context, tenantID string, env core.Environment, id string) (webhook.Delivery, error)
	// LockDeliveryByID locks a tenant's delivery by id in any environment (the delivery job).
	LockDeliveryByID(ctx context.Context, tenantID, id string) (webhook.Delivery, error)
	// DeliveryTenant is the tenant of a delivery found by id alone: for a delivery job enqueued
	// before jobs carried the tenant (it asks every shard on Citus).
	DeliveryTenant(ctx context.Context, id string) (string, error)
	UpdateDelivery(ctx context.Context, d webhook.Delivery) error
	// ListDeliveries lists an endpoint's deliveries newest first.
	ListDeliveries(ctx context.Context, tenantID, endpointID string, page Page) ([]webhook.Delivery, int, error)
	// EventDeliveries lists an event's deliveries to every endpoint, newest first, at most
	// MaxTake; another tenant's event has none.
	EventDeliveries(ctx context.Context, tenantID string, env core.Environment, eventID string) ([]webhook.Delivery, error)
	AddAttempt(ctx context.Context, a webhook.Attempt) error
	// Attempts lists the attempts of the given deliveries, oldest first per delivery.
	Attempts(ctx context.Context, tenantID string, deliveryIDs []string) (map[string][]webhook.Attempt, error)
}
