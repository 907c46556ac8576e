-- Members and API keys key by (tenant_id, id), so that on Citus they are distributed by tenant
-- beside the rest of the tenant's rows (docs/scaling.md): every statement of a members or keys
-- unit of work names the tenant and goes to its shard group. The foreign keys between them
-- carry the tenant too (Citus enforces a key between distributed tables only on the
-- distribution column).
ALTER TABLE api_keys DROP CONSTRAINT api_keys_created_by_key_id_fkey;
ALTER TABLE api_keys DROP CONSTRAINT api_keys_created_by_member_id_fkey;
ALTER TABLE members DROP CONSTRAINT members_pkey;
ALTER TABLE members ADD CONSTRAINT members_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE api_keys DROP CONSTRAINT api_keys_pkey;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_created_by_key_id_fkey
    FOREIGN KEY (tenant_id, created_by_key_id) REFERENCES api_keys (tenant_id, id);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_created_by_member_id_fkey
    FOREIGN KEY (tenant_id, created_by_member_id) REFERENCES members (tenant_id, id);

-- tenant_lookups answers the lookups made before the tenant is known, each keyed by its own
-- value: an API key's public id (authentication), an invite's token hash (accepting it) and a
-- session user's memberships. A row is written in the same unit of work as the row it finds.
-- On Citus it is distributed by lookup_key, so a lookup is one statement on one shard, and
-- what it found then routes to the tenant's shard group. Uniqueness of a public id or token
-- hash across all tenants is kept here (the tables themselves are unique per tenant only).
CREATE TABLE tenant_lookups (
    lookup_key text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('api_key', 'invite', 'member_user')),
    tenant_id text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (lookup_key, kind, tenant_id)
);
-- A public id or an invite belongs to one tenant; a user may be a member of several.
CREATE UNIQUE INDEX tenant_lookups_one_tenant ON tenant_lookups (lookup_key, kind) WHERE kind <> 'member_user';

INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT pub_id, 'api_key', tenant_id, created_at FROM api_keys;
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT invite_token_hash, 'invite', tenant_id, created_at FROM members;
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT identity_user_id, 'member_user', tenant_id, min(created_at) FROM members
WHERE identity_user_id IS NOT NULL GROUP BY identity_user_id, tenant_id;

-- The global unique constraints give way to per-tenant ones (the lookup keeps them global).
ALTER TABLE api_keys DROP CONSTRAINT api_keys_pub_id_key;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_pub_id_key UNIQUE (tenant_id, pub_id);
ALTER TABLE members DROP CONSTRAINT members_invite_token_hash_key;
ALTER TABLE members ADD CONSTRAINT members_invite_token_hash_key UNIQUE (tenant_id, invite_token_hash);
