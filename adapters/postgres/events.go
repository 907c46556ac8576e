package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/timestamp"
	"github.com/corridorhq/corridor/core/webhook"
	"github.com/corridorhq/corridor/ports"
)

var _ ports.EventRepo = eventRepo{}

type eventModel struct {
	bun.BaseModel `bun:"table:events"`
	ID            string          `bun:"id,pk"`
	TenantID      string          `bun:"tenant_id"`
	Environment   string          `bun:"environment"`
	Type          string          `bun:"type"`
	ResourceID    string          `bun:"resource_id"`
	Data          json.RawMessage `bun:"data,type:jsonb"`
	CreatedAt     time.Time       `bun:"created_at"`
}

func (m eventModel) domain() (event.Event, error) {
	var data map[string]any
	if err := json.Unmarshal(m.Data, &data); err != nil {
		return event.Event{}, fmt.Errorf("event %s: data: %w", m.ID, err)
	}
	e := event.Event{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), Type: m.Type,
		ResourceID: m.ResourceID, Data: data, CreatedAt: m.CreatedAt.UTC()}
	return e, e.Validate()
}

type endpointModel struct {
	bun.BaseModel  `bun:"table:webhook_endpoints"`
	ID             string     `bun:"id,pk"`
	TenantID       string     `bun:"tenant_id"`
	Environment    string     `bun:"environment"`
	URL            string     `bun:"url"`
	EventTypes     []string   `bun:"event_types,array"`
	Enabled        bool       `bun:"enabled"`
	SecretSealed   []byte     `bun:"secret_sealed"`
	FailingSince   *time.Time `bun:"failing_since"`
	DisabledReason string     `bun:"disabled_reason"`
	DeletedAt      *time.Time `bun:"deleted_at"`
	EnabledAt      time.Time  `bun:"enabled_at,nullzero"`
	CreatedAt      time.Time  `bun:"created_at"`
	UpdatedAt      time.Time  `bun:"updated_at"`
}

func endpointFromDomain(e webhook.Endpoint) endpointModel {
	types := e.EventTypes
	if types == nil {
		types = []string{}
	}
	return endpointModel{ID: e.ID, TenantID: e.TenantID, Environment: string(e.Environment), URL: e.URL, EventTypes: types,
		Enabled: e.Enabled, SecretSealed: e.SealedSecret, FailingSince: e.FailingSince, DisabledReason: e.DisabledReason,
		EnabledAt: e.EnabledAt, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

func (m endpointModel) domain() (webhook.Endpoint, error) {
	e := webhook.Endpoint{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), URL: m.URL,
		EventTypes: m.EventTypes, Enabled: m.Enabled, SealedSecret: m.SecretSealed, FailingSince: utcPtr(m.FailingSince),
		DisabledReason: m.DisabledReason, EnabledAt: m.EnabledAt.UTC(), CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()}
	return e, e.Validate()
}

type deliveryModel struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`
	ID            string     `bun:"id,pk"`
	TenantID      string     `bun:"tenant_id"`
	Environment   string     `bun:"environment"`
	EndpointID    string     `bun:"endpoint_id"`
	EventID       string     `bun:"event_id"`
	EventType     string     `bun:"event_type"`
	Status        string     `bun:"status"`
	Attempts      int        `bun:"attempts"`
	RedeliveryOf  *string    `bun:"redelivery_of"`
	NextAttemptAt *time.Time `bun:"next_attempt_at"`
	// AttemptStartedAt marks an attempt in flight (webhook.Delivery.AttemptStartedAt).
	AttemptStartedAt *time.Time `bun:"attempt_started_at"`
	CreatedAt        time.Time  `bun:"created_at"`
	UpdatedAt        time.Time  `bun:"updated_at"`
}

func deliveryFromDomain(d webhook.Delivery) deliveryModel {
	return deliveryModel{ID: d.ID, TenantID: d.TenantID, Environment: string(d.Environment), EndpointID: d.EndpointID,
		EventID: d.EventID, EventType: d.EventType, Status: string(d.Status), Attempts: d.Attempts,
		RedeliveryOf: nullable(d.RedeliveryOf), NextAttemptAt: d.NextAttemptAt, AttemptStartedAt: d.AttemptStartedAt,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

func (m deliveryModel) domain() (webhook.Delivery, error) {
	d := webhook.Delivery{ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), EndpointID: m.EndpointID,
		EventID: m.EventID, EventType: m.EventType, Status: webhook.DeliveryStatus(m.Status), Attempts: m.Attempts,
		RedeliveryOf: deref(m.RedeliveryOf), NextAttemptAt: utcPtr(m.NextAttemptAt), AttemptStartedAt: utcPtr(m.AttemptStartedAt),
		CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()}
	if !core.HasPrefix(d.ID, core.PrefixWebhookDelivery) {
		return d, fmt.Errorf("webhook delivery: id %q", d.ID)
	}
	return d, nil
}

type attemptModel struct {
	bun.BaseModel `bun:"table:webhook_attempts"`
	TenantID      string    `bun:"tenant_id,pk"`
	DeliveryID    string    `bun:"delivery_id,pk"`
	Number        int       `bun:"number,pk"`
	At            time.Time `bun:"at"`
	StatusCode    int       `bun:"status_code"`
	Error         string    `bun:"error"`
	DurationMs    int64     `bun:"duration_ms"`
	Succeeded     bool      `bun:"succeeded"`
	Unknown       bool      `bun:"unknown_outcome"`
}

type eventRepo struct{ db bun.IDB }

func (r eventRepo) RecordEvent(ctx context.Context, e event.Event) (bool, error) {
	if err := e.Validate(); err != nil {
		return false, err
	}
	// The data is stored as the payload will carry it: instants in the API's form, by type.
	data, err := timestamp.Marshal(e.Data)
	if err != nil {
		return false, fmt.Errorf("event %s: data: %w", e.ID, err)
	}
	// The resource's latest event is the tenant's: on Citus the statement stays on its shard.
	res, err := recordEventQuery(r.db, e, data).Exec(ctx)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// fannedOutUnlessEndpoint is an event's dispatched_at as it is inserted ($2 its tenant, $3 its
// environment): none while an enabled endpoint of the tenant's environment exists, so the
// fan-out pass claims it; otherwise the statement's time, so the event is recorded as fanned
// out already. The fan-out of such an event would find no endpoint to deliver it to: it would
// only update the row again (a second version of it and of its indexes, and its own statement),
// and the row would not enter the index of events still to fan out. An endpoint receives the
// events recorded once its registration (or its re-enabling) has committed (docs/webhooks.md).
const fannedOutUnlessEndpoint = `CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints p WHERE p.tenant_id = $2
        AND p.environment = $3 AND p.deleted_at IS NULL AND p.enabled) THEN NULL ELSE now() END`

// recordEventFannedOut is fannedOutUnlessEndpoint with recordEventQuery's placeholders.
var recordEventFannedOut = strings.NewReplacer("$2", "?1", "$3", "?2").Replace(fannedOutUnlessEndpoint)

// recordEventQuery is RecordEvent's insert of e with its stored data (cardRepo's
// createSpendingAuthorizationSQL writes the same insert with server-side parameters).
func recordEventQuery(db bun.IDB, e event.Event, data []byte) *bun.RawQuery {
	return db.NewRaw(`INSERT INTO events (id, tenant_id, environment, type, resource_id, data, created_at, dispatched_at)
		SELECT ?0, ?1, ?2, ?3, ?4, ?5, ?6, `+recordEventFannedOut+`
		WHERE ?7 OR coalesce((SELECT type FROM events WHERE tenant_id = ?1 AND resource_id = ?4
			ORDER BY id DESC LIMIT 1), '') <> ?3`,
		e.ID, e.TenantID, string(e.Environment), e.Type, e.ResourceID, string(data), e.CreatedAt, e.Repeatable)
}

func (r eventRepo) FindEvent(ctx context.Context, tenantID string, env core.Environment, id string) (event.Event, error) {
	return oneRow[event.Event, eventModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id), event.ErrNotFound)
}

func (r eventRepo) FindEventByID(ctx context.Context, tenantID, id string) (event.Event, error) {
	return oneRow[event.Event, eventModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND id = ?", tenantID, id), event.ErrNotFound)
}

func (r eventRepo) ListEvents(ctx context.Context, f ports.EventFilter, page ports.Page) ([]event.Event, int, error) {
	var rows []eventModel
	q := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", f.TenantID, f.Environment)
	if family, ok := strings.CutSuffix(f.Type, ".*"); ok {
		q = q.Where("starts_with(type, ?)", family+".")
	} else if f.Type != "" {
		q = q.Where("type = ?", f.Type)
	}
	if f.ResourceID != "" {
		q = q.Where("resource_id = ?", f.ResourceID)
	}
	if !f.From.IsZero() {
		q = q.Where("created_at >= ?", f.From)
	}
	if !f.To.IsZero() {
		q = q.Where("created_at < ?", f.To)
	}
	total, err := q.OrderExpr("id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[event.Event](rows)
	return out, int(total), err
}

// TenantsWithUndispatchedEvents reads, without locking, which tenants have events to fan out:
// on Citus one read over every shard (a locking claim across shards is what Citus refuses), so
// the claims that follow are each on one tenant's shard.
func (r eventRepo) TenantsWithUndispatchedEvents(ctx context.Context, limit int) ([]string, error) {
	var out []string
	err := r.db.NewRaw(`SELECT DISTINCT tenant_id FROM events WHERE dispatched_at IS NULL ORDER BY tenant_id LIMIT ?`, limit).
		Scan(ctx, &out)
	return out, err
}

// ClaimUndispatchedEvents names the tenant in both the lock and the update, so on Citus the
// whole claim (SKIP LOCKED included) runs on the tenant's shard. The lock is FOR NO KEY UPDATE,
// the update's own strength (dispatched_at is no key): a delivery's key to the event (its
// key-share lock) never waits for the claim, so the claim and a delivery written beside it
// cannot deadlock on the event and the first-delivery key.
func (r eventRepo) ClaimUndispatchedEvents(ctx context.Context, tenantID string, limit int) ([]event.Event, error) {
	var rows []eventModel
	err := r.db.NewRaw(`UPDATE events SET dispatched_at = now() WHERE tenant_id = ? AND id IN (
		SELECT id FROM events WHERE tenant_id = ? AND dispatched_at IS NULL ORDER BY id LIMIT ? FOR NO KEY UPDATE SKIP LOCKED)
		RETURNING id, tenant_id, environment, type, resource_id, data, created_at`, tenantID, tenantID, limit).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	return domainRows[event.Event](rows)
}

func (r eventRepo) CreateEndpoint(ctx context.Context, e webhook.Endpoint) error {
	if err := e.Validate(); err != nil {
		return err
	}
	m := endpointFromDomain(e)
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r eventRepo) FindEndpoint(ctx context.Context, tenantID string, env core.Environment, id string) (webhook.Endpoint, error) {
	return oneRow[webhook.Endpoint, endpointModel](ctx, r.db.NewSelect().
		Where("tenant_id = ? AND environment = ? AND id = ? AND deleted_at IS NULL", tenantID, env, id), webhook.ErrEndpointNotFound)
}

func (r eventRepo) LockEndpointByID(ctx context.Context, tenantID, id string) (webhook.Endpoint, error) {
	return oneRow[webhook.Endpoint, endpointModel](ctx, r.db.NewSelect().
		Where("tenant_id = ? AND id = ? AND deleted_at IS NULL", tenantID, id).For("UPDATE"), webhook.ErrEndpointNotFound)
}

func (r eventRepo) ListEndpoints(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]webhook.Endpoint, int, error) {
	var rows []endpointModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ? AND deleted_at IS NULL", tenantID, env).
		OrderExpr("id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[webhook.Endpoint](rows)
	return out, int(total), err
}

func (r eventRepo) EnabledEndpoints(ctx context.Context, tenantID string, env core.Environment) ([]webhook.Endpoint, error) {
	var rows []endpointModel
	err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ? AND deleted_at IS NULL AND enabled", tenantID, env).
		OrderExpr("id").Limit(webhook.MaxEndpoints).Scan(ctx)
	if err != nil {
		return nil, err
	}
	return domainRows[webhook.Endpoint](rows)
}

// CountEndpoints first takes a transaction-scoped advisory lock keyed by the tenant and
// environment, so counting and inserting are one step for parallel registrations.
func (r eventRepo) CountEndpoints(ctx context.Context, tenantID string, env core.Environment) (int, error) {
	if _, err := r.db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", "webhook-endpoints:"+tenantID+":"+string(env)); err != nil {
		return 0, err
	}
	n, err := r.db.NewSelect().Model((*endpointModel)(nil)).Where("tenant_id = ? AND environment = ? AND deleted_at IS NULL", tenantID, env).Count(ctx)
	return int(n), err
}

func (r eventRepo) UpdateEndpoint(ctx context.Context, e webhook.Endpoint) error {
	if err := e.Validate(); err != nil {
		return err
	}
	m := endpointFromDomain(e)
	_, err := r.db.NewUpdate().Model(&m).Column("url", "event_types", "enabled", "secret_sealed", "failing_since", "disabled_reason", "enabled_at", "updated_at").
		WherePK().Where("tenant_id = ?", e.TenantID).Exec(ctx)
	return err
}

func (r eventRepo) DeleteEndpoint(ctx context.Context, tenantID string, env core.Environment, id string, at time.Time) error {
	res, err := r.db.NewUpdate().Model((*endpointModel)(nil)).Set("deleted_at = ?, enabled = false, updated_at = ?", at, at).
		Where("tenant_id = ? AND environment = ? AND id = ? AND deleted_at IS NULL", tenantID, env, id).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return webhook.ErrEndpointNotFound
	}
	_, err = r.db.NewUpdate().Model((*deliveryModel)(nil)).Set("status = 'FAILED', next_attempt_at = NULL, updated_at = ?", at).
		Where("tenant_id = ? AND endpoint_id = ? AND status = 'PENDING'", tenantID, id).Exec(ctx)
	return err
}

func (r eventRepo) CreateDelivery(ctx context.Context, d webhook.Delivery) error {
	m := deliveryFromDomain(d)
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r eventRepo) FindDelivery(ctx context.Context, tenantID string, env core.Environment, id string) (webhook.Delivery, error) {
	return oneRow[webhook.Delivery, deliveryModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id), webhook.ErrDeliveryNotFound)
}

func (r eventRepo) LockDeliveryByID(ctx context.Context, tenantID, id string) (webhook.Delivery, error) {
	return oneRow[webhook.Delivery, deliveryModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND id = ?", tenantID, id).For("UPDATE"),
		webhook.ErrDeliveryNotFound)
}

func (r eventRepo) DeliveryTenant(ctx context.Context, id string) (string, error) {
	var tenantID string
	err := r.db.NewSelect().Table("webhook_deliveries").Column("tenant_id").Where("id = ?", id).Scan(ctx, &tenantID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", webhook.ErrDeliveryNotFound
	}
	return tenantID, err
}

func (r eventRepo) UpdateDelivery(ctx context.Context, d webhook.Delivery) error {
	m := deliveryFromDomain(d)
	_, err := r.db.NewUpdate().Model(&m).Column("status", "attempts", "next_attempt_at", "attempt_started_at", "updated_at").
		WherePK().Where("tenant_id = ?", d.TenantID).Exec(ctx)
	return err
}

func (r eventRepo) ListDeliveries(ctx context.Context, tenantID, endpointID string, page ports.Page) ([]webhook.Delivery, int, error) {
	var rows []deliveryModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND endpoint_id = ?", tenantID, endpointID).
		OrderExpr("id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := domainRows[webhook.Delivery](rows)
	return out, int(total), err
}

func (r eventRepo) EventDeliveries(ctx context.Context, tenantID string, env core.Environment, eventID string) ([]webhook.Delivery, error) {
	var rows []deliveryModel
	err := r.db.NewSelect().Model(&rows).Where("event_id = ? AND tenant_id = ? AND environment = ?", eventID, tenantID, string(env)).
		OrderExpr("id DESC").Limit(ports.MaxTake).Scan(ctx)
	if err != nil {
		return nil, err
	}
	return domainRows[webhook.Delivery](rows)
}

func (r eventRepo) AddAttempt(ctx context.Context, a webhook.Attempt) error {
	m := attemptModel{TenantID: a.TenantID, DeliveryID: a.DeliveryID, Number: a.Number, At: a.At, StatusCode: a.StatusCode, Error: a.Error,
		DurationMs: a.DurationMs, Succeeded: a.Succeeded, Unknown: a.Unknown}
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r eventRepo) Attempts(ctx context.Context, tenantID string, deliveryIDs []string) (map[string][]webhook.Attempt, error) {
	out := map[string][]webhook.Attempt{}
	if len(deliveryIDs) == 0 {
		return out, nil
	}
	var rows []attemptModel
	if err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND delivery_id IN (?)", tenantID, bun.List(deliveryIDs)).
		OrderExpr("delivery_id, number").Scan(ctx); err != nil {
		return nil, err
	}
	for _, m := range rows {
		out[m.DeliveryID] = append(out[m.DeliveryID], webhook.Attempt{TenantID: m.TenantID, DeliveryID: m.DeliveryID, Number: m.Number, At: m.At.UTC(),
			StatusCode: m.StatusCode, Error: m.Error, DurationMs: m.DurationMs, Succeeded: m.Succeeded, Unknown: m.Unknown})
	}
	return out, nil
}
