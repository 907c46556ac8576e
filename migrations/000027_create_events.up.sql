-- Partner-facing events (docs/decisions/webhooks.md), written in the transaction of the state change they
-- announce, and the webhook endpoints and deliveries that carry them out.
CREATE TABLE events (
    id            text PRIMARY KEY,
    tenant_id     text NOT NULL REFERENCES tenants (id),
    environment   text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    type          text NOT NULL CHECK (type ~ '^[a-z0-9_]+(\.[a-z0-9_]+)+$'),
    resource_id   text NOT NULL CHECK (resource_id <> ''),
    data          jsonb NOT NULL,
    created_at    timestamptz NOT NULL,
    -- dispatched_at: when the fan-out pass created this event's webhook deliveries.
    dispatched_at timestamptz
);
-- A resource's latest event: an update that leaves its status as it was records nothing.
CREATE INDEX events_resource_idx ON events (resource_id, id);
CREATE INDEX events_tenant_idx ON events (tenant_id, environment, id);
CREATE INDEX events_tenant_time_idx ON events (tenant_id, environment, created_at);
CREATE INDEX events_undispatched_idx ON events (id) WHERE dispatched_at IS NULL;

CREATE TABLE webhook_endpoints (
    id              text PRIMARY KEY,
    tenant_id       text NOT NULL REFERENCES tenants (id),
    environment     text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    url             text NOT NULL CHECK (url ~ '^https?://' AND length(url) <= 2048),
    event_types     text[] NOT NULL DEFAULT '{}',
    enabled         boolean NOT NULL,
    -- The signing secret sealed with the service cipher (it must be recoverable to sign).
    secret_sealed   bytea NOT NULL,
    failing_since   timestamptz,
    disabled_reason text NOT NULL DEFAULT '',
    deleted_at      timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_tenant_idx ON webhook_endpoints (tenant_id, environment, id) WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
    id              text PRIMARY KEY,
    tenant_id       text NOT NULL REFERENCES tenants (id),
    environment     text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    endpoint_id     text NOT NULL REFERENCES webhook_endpoints (id),
    event_id        text NOT NULL REFERENCES events (id),
    event_type      text NOT NULL,
    status          text NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
    attempts        integer NOT NULL CHECK (attempts >= 0),
    redelivery_of   text REFERENCES webhook_deliveries (id),
    next_attempt_at timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);
-- One first delivery per event and endpoint: a repeated fan-out creates nothing.
CREATE UNIQUE INDEX webhook_deliveries_first_key ON webhook_deliveries (event_id, endpoint_id) WHERE redelivery_of IS NULL;
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);

CREATE TABLE webhook_attempts (
    delivery_id text NOT NULL REFERENCES webhook_deliveries (id),
    number      integer NOT NULL CHECK (number > 0),
    at          timestamptz NOT NULL,
    status_code integer NOT NULL,
    error       text NOT NULL DEFAULT '',
    duration_ms bigint NOT NULL,
    succeeded   boolean NOT NULL,
    PRIMARY KEY (delivery_id, number)
);
