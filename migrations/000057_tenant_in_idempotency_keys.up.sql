-- The tenant in the idempotency records' key, so that on Citus they are distributed by tenant
-- and co-located with the rest of the tenant's rows (docs/scaling.md): a unit of work claims its
-- key on the tenant's own shard group. tenant_id is the tenant of the scope "tenant:{id}"; a
-- session without a tenant (scope "user:{sub}") keeps its scope there, which places its few
-- records on some shard like any other value. Existing rows are backfilled from the scope.
ALTER TABLE idempotency_keys ADD COLUMN tenant_id text;
UPDATE idempotency_keys
SET tenant_id = CASE WHEN scope LIKE 'tenant:%' THEN substr(scope, 8) ELSE scope END;
ALTER TABLE idempotency_keys ALTER COLUMN tenant_id SET NOT NULL;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (tenant_id, scope, environment, key);
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_tenant_of_scope
    CHECK (tenant_id = CASE WHEN scope LIKE 'tenant:%' THEN substr(scope, 8) ELSE scope END);

-- idempotency_claim takes the tenant as well and filters on it, so Citus routes each of its
-- reads to the tenant's shard instead of asking every shard (migration 000035 explains the rest).
DROP FUNCTION idempotency_claim(text, text, text, timestamptz);
CREATE FUNCTION idempotency_claim(p_tenant text, p_scope text, p_environment text, p_key text, p_now timestamptz)
RETURNS TABLE (claimed boolean, stored boolean, rec_fingerprint text, rec_status_code integer,
               rec_body bytea, rec_content_type text, rec_created_at timestamptz, rec_expires_at timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    r record;
    locked boolean := false;
BEGIN
    SELECT k.fingerprint, k.status_code, k.body, k.content_type, k.created_at, k.expires_at INTO r
    FROM idempotency_keys k
    WHERE k.tenant_id = p_tenant AND k.scope = p_scope AND k.environment = p_environment AND k.key = p_key
      AND k.expires_at > p_now;
    IF NOT FOUND THEN
        locked := pg_try_advisory_xact_lock(hashtextextended(p_scope || '|' || p_environment || '|' || p_key, 2));
        IF NOT locked THEN
            RETURN QUERY SELECT false, false, NULL::text, NULL::integer, NULL::bytea, NULL::text,
                NULL::timestamptz, NULL::timestamptz;
            RETURN;
        END IF;
        SELECT k.fingerprint, k.status_code, k.body, k.content_type, k.created_at, k.expires_at INTO r
        FROM idempotency_keys k
        WHERE k.tenant_id = p_tenant AND k.scope = p_scope AND k.environment = p_environment AND k.key = p_key
          AND k.expires_at > p_now;
        IF NOT FOUND THEN
            RETURN QUERY SELECT true, false, NULL::text, NULL::integer, NULL::bytea, NULL::text,
                NULL::timestamptz, NULL::timestamptz;
            RETURN;
        END IF;
    END IF;
    RETURN QUERY SELECT locked, true, r.fingerprint, r.status_code, r.body, r.content_type, r.created_at, r.expires_at;
END
$$;
