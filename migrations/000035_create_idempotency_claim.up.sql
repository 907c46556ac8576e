-- idempotency_claim does the idempotent POST's three checks in one round trip: the stored
-- outcome (read without the lock, so concurrent replays of a finished request never refuse
-- each other), then the key's transaction-scoped advisory lock, then the stored outcome again
-- under the lock. Each query of a VOLATILE PL/pgSQL function takes its own snapshot in READ
-- COMMITTED, so the second read sees an outcome committed while the lock was being taken,
-- exactly as the separate statements did. The lock key is the one the store's TryLock uses.
-- claimed: the lock is held by this transaction; stored: a live outcome was found (its
-- columns follow); neither: another transaction holds the key (in progress).
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
