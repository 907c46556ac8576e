ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_delivery_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_redelivery_of_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_endpoint_id_fkey;

DROP INDEX events_resource_idx;
CREATE INDEX events_resource_idx ON events (resource_id, id);
DROP INDEX events_undispatched_idx;
CREATE INDEX events_undispatched_idx ON events (id) WHERE dispatched_at IS NULL;
DROP INDEX webhook_deliveries_endpoint_idx;
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);
DROP INDEX webhook_deliveries_first_key;
CREATE UNIQUE INDEX webhook_deliveries_first_key ON webhook_deliveries (event_id, endpoint_id) WHERE redelivery_of IS NULL;

ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_pkey;
ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (delivery_id, number);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_pkey;
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id);
ALTER TABLE events DROP CONSTRAINT events_pkey;
ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id);
ALTER TABLE webhook_attempts DROP COLUMN tenant_id;

ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey
    FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints (id);
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_id_fkey
    FOREIGN KEY (event_id) REFERENCES events (id);
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_redelivery_of_fkey
    FOREIGN KEY (redelivery_of) REFERENCES webhook_deliveries (id);
ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_delivery_id_fkey
    FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries (id);
