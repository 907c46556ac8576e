CREATE INDEX card_authorizations_card_created_idx ON card_authorizations (tenant_id, card_id, created_at DESC, id DESC);

ALTER TABLE card_authorizations ADD CONSTRAINT card_authorizations_tenant_id_fkey
    FOREIGN KEY (tenant_id) REFERENCES tenants (id);

CREATE TABLE card_spend_windows (
    card_id text NOT NULL,
    window_key text NOT NULL,
    spent_base_units bigint NOT NULL CHECK (spent_base_units >= 0),
    tenant_id text NOT NULL,
    PRIMARY KEY (tenant_id, card_id, window_key)
);

DO $$
DECLARE
    cards_distributed boolean := false;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        EXECUTE $q$SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'cards'::regclass)$q$
            INTO cards_distributed;
    END IF;
    IF cards_distributed THEN
        EXECUTE $q$SELECT create_distributed_table('card_spend_windows', 'tenant_id', colocate_with => 'cards')$q$;
    END IF;
END
$$;

ALTER TABLE card_spend_windows ADD CONSTRAINT card_spend_windows_card_id_fkey
    FOREIGN KEY (tenant_id, card_id) REFERENCES cards (tenant_id, id);

INSERT INTO card_spend_windows (tenant_id, card_id, window_key, spent_base_units)
SELECT s.tenant_id, s.card_id, w.key, w.spent
FROM card_spend s
CROSS JOIN LATERAL (VALUES (s.day_key::text, s.spent_daily), (s.week_key::text, s.spent_weekly),
    (s.month_key::text, s.spent_monthly)) AS w (key, spent)
WHERE w.key <> '';

DROP FUNCTION card_lock_for_decision(text, text, text, text, text, text, boolean);
CREATE FUNCTION card_lock_for_decision(p_tenant text, p_environment text, p_id text, p_day text, p_week text, p_month text)
RETURNS TABLE (card cards, spent_daily bigint, spent_weekly bigint, spent_monthly bigint, policy_attached boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    c cards;
BEGIN
    SELECT * INTO c FROM cards
    WHERE tenant_id = p_tenant AND environment = p_environment AND id = p_id
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT c,
           coalesce(sum(w.spent_base_units) FILTER (WHERE w.window_key = p_day), 0)::bigint,
           coalesce(sum(w.spent_base_units) FILTER (WHERE w.window_key = p_week), 0)::bigint,
           coalesce(sum(w.spent_base_units) FILTER (WHERE w.window_key = p_month), 0)::bigint,
           EXISTS (
               SELECT 1 FROM policy_attachments a
               WHERE a.tenant_id = p_tenant AND a.environment = p_environment AND a.detached_at IS NULL
                 AND ((a.subject_type = 'card' AND a.subject_id = c.id)
                   OR (a.subject_type = 'wallet' AND a.subject_id = c.wallet_id)
                   OR (a.subject_type = 'agent' AND a.subject_id = c.agent_id)))
    FROM card_spend_windows w
    WHERE w.tenant_id = p_tenant AND w.card_id = p_id AND w.window_key IN (p_day, p_week, p_month);
END
$$;

CREATE FUNCTION card_lock_for_decision_skip(p_tenant text, p_environment text, p_id text, p_day text, p_week text, p_month text)
RETURNS TABLE (card cards, spent_daily bigint, spent_weekly bigint, spent_monthly bigint, policy_attached boolean)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM 1 FROM cards
    WHERE tenant_id = p_tenant AND environment = p_environment AND id = p_id
    FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    -- The card is this transaction's now: card_lock_for_decision's lock takes it again without
    -- waiting, and its reads are the decision's.
    RETURN QUERY SELECT * FROM card_lock_for_decision(p_tenant, p_environment, p_id, p_day, p_week, p_month);
END
$$;

DROP TABLE card_spend;
