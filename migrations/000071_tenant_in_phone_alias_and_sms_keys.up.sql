-- Phone aliases and the sandbox SMS outbox key by their tenant, so that on Citus they are
-- distributed by tenant beside the rest of its rows (docs/scaling.md). A verified phone number
-- stays one tenant's across all tenants: that uniqueness moves to a tenant_lookups row (kind
-- 'phone_alias', keyed by environment and phone hash), which also answers which tenant owns a
-- phone before the tenant is known (paying a phone number). Within a tenant the index keeps it.
ALTER TABLE phone_aliases DROP CONSTRAINT phone_aliases_pkey;
ALTER TABLE phone_aliases ADD CONSTRAINT phone_aliases_pkey PRIMARY KEY (tenant_id, id);
DROP INDEX phone_aliases_verified_key;
CREATE UNIQUE INDEX phone_aliases_verified_key ON phone_aliases (tenant_id, environment, phone_hash)
    WHERE status = 'VERIFIED';
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT environment || ':' || phone_hash, 'phone_alias', tenant_id, created_at FROM phone_aliases
WHERE status = 'VERIFIED';

-- A text's idempotency key is its tenant's (the keys name the claim or alias they text for).
ALTER TABLE sms_messages DROP CONSTRAINT sms_messages_pkey;
ALTER TABLE sms_messages ADD CONSTRAINT sms_messages_pkey PRIMARY KEY (tenant_id, id);
DROP INDEX sms_messages_idempotency_key;
CREATE UNIQUE INDEX sms_messages_idempotency_key ON sms_messages (tenant_id, idempotency_key);
