ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_agent_id_fkey;
ALTER TABLE agent_card_spend DROP CONSTRAINT agent_card_spend_agent_id_fkey;
ALTER TABLE card_spend_windows DROP CONSTRAINT card_spend_windows_card_id_fkey;
ALTER TABLE card_authorizations DROP CONSTRAINT card_authorizations_card_id_fkey;
ALTER TABLE cards DROP CONSTRAINT cards_cardholder_id_fkey;

DROP INDEX agent_card_spend_agent_idx;
CREATE INDEX agent_card_spend_agent_idx ON agent_card_spend (agent_id, month_start) WHERE released_at IS NULL;
DROP INDEX card_authorizations_card_created_idx;
CREATE INDEX card_authorizations_card_created_idx ON card_authorizations (card_id, created_at DESC, id DESC);
DROP INDEX card_authorizations_card_idx;
CREATE INDEX card_authorizations_card_idx ON card_authorizations (card_id, id);
DROP INDEX cards_wallet_idx;
CREATE INDEX cards_wallet_idx ON cards (wallet_id) WHERE wallet_id IS NOT NULL;
DROP INDEX cards_agent_idx;
CREATE UNIQUE INDEX cards_agent_idx ON cards (agent_id) WHERE agent_id IS NOT NULL;
ALTER TABLE agents DROP CONSTRAINT agents_wallet_id_key;
ALTER TABLE agents ADD CONSTRAINT agents_wallet_id_key UNIQUE (wallet_id);
ALTER TABLE cards DROP CONSTRAINT cards_issuer_issuer_card_id_key;
ALTER TABLE cards ADD CONSTRAINT cards_issuer_issuer_card_id_key UNIQUE (issuer, issuer_card_id);

ALTER TABLE agent_card_spend DROP CONSTRAINT agent_card_spend_pkey;
ALTER TABLE agent_card_spend ADD CONSTRAINT agent_card_spend_pkey PRIMARY KEY (authorization_id);
ALTER TABLE agents DROP CONSTRAINT agents_pkey;
ALTER TABLE agents ADD CONSTRAINT agents_pkey PRIMARY KEY (id);
ALTER TABLE card_spend_windows DROP CONSTRAINT card_spend_windows_pkey;
ALTER TABLE card_spend_windows ADD CONSTRAINT card_spend_windows_pkey PRIMARY KEY (card_id, window_key);
ALTER TABLE card_authorizations DROP CONSTRAINT card_authorizations_pkey;
ALTER TABLE card_authorizations ADD CONSTRAINT card_authorizations_pkey PRIMARY KEY (id);
ALTER TABLE cards DROP CONSTRAINT cards_pkey;
ALTER TABLE cards ADD CONSTRAINT cards_pkey PRIMARY KEY (id);
ALTER TABLE cardholders DROP CONSTRAINT cardholders_pkey;
ALTER TABLE cardholders ADD CONSTRAINT cardholders_pkey PRIMARY KEY (id);
ALTER TABLE card_spend_windows DROP COLUMN tenant_id;

ALTER TABLE cards ADD CONSTRAINT cards_cardholder_id_fkey FOREIGN KEY (cardholder_id) REFERENCES cardholders (id);
ALTER TABLE card_authorizations ADD CONSTRAINT card_authorizations_card_id_fkey FOREIGN KEY (card_id) REFERENCES cards (id);
ALTER TABLE card_spend_windows ADD CONSTRAINT card_spend_windows_card_id_fkey FOREIGN KEY (card_id) REFERENCES cards (id);
ALTER TABLE agent_card_spend ADD CONSTRAINT agent_card_spend_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES agents (id);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES agents (id);

CREATE OR REPLACE FUNCTION card_lock_for_decision(p_tenant text, p_environment text, p_id text, p_day text, p_week text, p_month text)
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
               WHERE a.tenant_id = c.tenant_id AND a.environment = c.environment AND a.detached_at IS NULL
                 AND ((a.subject_type = 'card' AND a.subject_id = c.id)
                   OR (a.subject_type = 'wallet' AND a.subject_id = c.wallet_id)
                   OR (a.subject_type = 'agent' AND a.subject_id = c.agent_id)))
    FROM card_spend_windows w
    WHERE w.card_id = c.id AND w.window_key IN (p_day, p_week, p_month);
END
$$;
