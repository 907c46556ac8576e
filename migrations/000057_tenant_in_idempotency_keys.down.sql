DROP FUNCTION IF EXISTS idempotency_claim(text, text, text, text, timestamptz);
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_tenant_of_scope;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (scope, environment, key);
ALTER TABLE idempotency_keys DROP COLUMN tenant_id;
CREATE FUNCTION idempotency_claim(p_scope text, p_environment text, p_key text, p_now timestamptz)
RETURNS TABLE (claimed boolean, stored boolean, rec_fingerprint text, rec_status_code integer,
               rec_body bytea, rec_content_type text, rec_created_at timestamptz, rec_expires_at timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    r idempotency_keys%ROWTYPE;
    locked boolean := false;
BEGIN
    SELECT * INTO r FROM idempotency_keys k
    WHERE k.scope = p_scope AND k.environment = p_environment AND k.key = p_key AND k.expires_at > p_now;
    IF NOT FOUND THEN
        locked := pg_try_advisory_xact_lock(hashtextextended(p_scope || '|' || p_environment || '|' || p_key, 2));
        IF NOT locked THEN
            RETURN QUERY SELECT false, false, NULL::text, NULL::integer, NULL::bytea, NULL::text,
                NULL::timestamptz, NULL::timestamptz;
            RETURN;
        END IF;
        SELECT * INTO r FROM idempotency_keys k
        WHERE k.scope = p_scope AND k.environment = p_environment AND k.key = p_key AND k.expires_at > p_now;
        IF NOT FOUND THEN
            RETURN QUERY SELECT true, false, NULL::text, NULL::integer, NULL::bytea, NULL::text,
                NULL::timestamptz, NULL::timestamptz;
            RETURN;
        END IF;
    END IF;
    RETURN QUERY SELECT locked, true, r.fingerprint, r.status_code, r.body, r.content_type, r.created_at, r.expires_at;
END
$$;
