-- A tenant's slug and its owner are unique across tenants, and a session finds the tenant it
-- owns by its user id. On Citus tenants is distributed by id, which cannot hold a unique key
-- on another column nor find a row by one without asking every shard: both values get a
-- tenant_lookups row (unique per value and kind), written with the tenant from now on and
-- backfilled here. On PostgreSQL the unique keys on tenants stay as a second guard; on Citus
-- `corridor migrate` drops them when it distributes tenants.
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT slug, 'tenant_slug', id, created_at FROM tenants
ON CONFLICT DO NOTHING;

INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT owner_user_id, 'tenant_owner', id, created_at FROM tenants
ON CONFLICT DO NOTHING;
