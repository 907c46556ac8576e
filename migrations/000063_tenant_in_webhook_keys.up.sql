-- Events and the webhook family key by the tenant, so that on Citus they are distributed by
-- tenant with the rest of its rows (docs/scaling.md): a webhook attempt, a fan-out of a
-- tenant's events and every endpoint or delivery read go to the tenant's shard group.
-- webhook_attempts gains the tenant of its delivery; the keys between the tables carry it.
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_delivery_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_endpoint_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_redelivery_of_fkey;

ALTER TABLE webhook_attempts ADD COLUMN tenant_id text;
UPDATE webhook_attempts a SET tenant_id = d.tenant_id FROM webhook_deliveries d WHERE d.id = a.delivery_id;
ALTER TABLE webhook_attempts ALTER COLUMN tenant_id SET NOT NULL;

ALTER TABLE events DROP CONSTRAINT events_pkey;
ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_pkey;
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_pkey;
ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (tenant_id, delivery_id, number);

DROP INDEX webhook_deliveries_first_key;
CREATE UNIQUE INDEX webhook_deliveries_first_key ON webhook_deliveries (tenant_id, event_id, endpoint_id)
    WHERE redelivery_of IS NULL;
DROP INDEX webhook_deliveries_endpoint_idx;
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (tenant_id, endpoint_id, id);
-- The fan-out finds the tenants with events to dispatch, then claims each tenant's in order.
DROP INDEX events_undispatched_idx;
CREATE INDEX events_undispatched_idx ON events (tenant_id, id) WHERE dispatched_at IS NULL;
DROP INDEX events_resource_idx;
CREATE INDEX events_resource_idx ON events (tenant_id, resource_id, id);

ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey
    FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id);
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_id_fkey
    FOREIGN KEY (tenant_id, event_id) REFERENCES events (tenant_id, id);
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_redelivery_of_fkey
    FOREIGN KEY (tenant_id, redelivery_of) REFERENCES webhook_deliveries (tenant_id, id);
ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_delivery_id_fkey
    FOREIGN KEY (tenant_id, delivery_id) REFERENCES webhook_deliveries (tenant_id, id);
