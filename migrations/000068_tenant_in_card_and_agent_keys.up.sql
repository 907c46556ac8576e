-- Cards, cardholders, card authorizations, the cards' spend windows, agents and the agents'
-- card spend key by the tenant, so that on Citus they are distributed by tenant beside the rest
-- of its rows (docs/scaling.md): an authorization's decision (the card's lock, its windows, its
-- agent's budget, its event) runs on the tenant's shard group alone. card_spend_windows gains
-- the tenant of its card. The keys between the tables carry the tenant (Citus enforces a key
-- between distributed tables only when it includes the distribution column).
ALTER TABLE card_spend_windows DROP CONSTRAINT card_spend_windows_card_id_fkey;
ALTER TABLE card_authorizations DROP CONSTRAINT card_authorizations_card_id_fkey;
ALTER TABLE cards DROP CONSTRAINT cards_cardholder_id_fkey;
ALTER TABLE agent_card_spend DROP CONSTRAINT agent_card_spend_agent_id_fkey;
-- On Citus, distributing api_keys already dropped its key to a then local agents.
ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_agent_id_fkey;

ALTER TABLE card_spend_windows ADD COLUMN tenant_id text;
UPDATE card_spend_windows w SET tenant_id = c.tenant_id FROM cards c WHERE c.id = w.card_id;
ALTER TABLE card_spend_windows ALTER COLUMN tenant_id SET NOT NULL;

ALTER TABLE cardholders DROP CONSTRAINT cardholders_pkey;
ALTER TABLE cardholders ADD CONSTRAINT cardholders_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE cards DROP CONSTRAINT cards_pkey;
ALTER TABLE cards ADD CONSTRAINT cards_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE card_authorizations DROP CONSTRAINT card_authorizations_pkey;
ALTER TABLE card_authorizations ADD CONSTRAINT card_authorizations_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE card_spend_windows DROP CONSTRAINT card_spend_windows_pkey;
ALTER TABLE card_spend_windows ADD CONSTRAINT card_spend_windows_pkey PRIMARY KEY (tenant_id, card_id, window_key);
ALTER TABLE agents DROP CONSTRAINT agents_pkey;
ALTER TABLE agents ADD CONSTRAINT agents_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE agent_card_spend DROP CONSTRAINT agent_card_spend_pkey;
ALTER TABLE agent_card_spend ADD CONSTRAINT agent_card_spend_pkey PRIMARY KEY (tenant_id, authorization_id);

-- The issuer's card id is unique per tenant here; no request finds a card by it (an issuer
-- webhook would, through a tenant_lookups row written with the card).
ALTER TABLE cards DROP CONSTRAINT cards_issuer_issuer_card_id_key;
ALTER TABLE cards ADD CONSTRAINT cards_issuer_issuer_card_id_key UNIQUE (tenant_id, issuer, issuer_card_id);
ALTER TABLE agents DROP CONSTRAINT agents_wallet_id_key;
ALTER TABLE agents ADD CONSTRAINT agents_wallet_id_key UNIQUE (tenant_id, wallet_id);
DROP INDEX cards_agent_idx;
CREATE UNIQUE INDEX cards_agent_idx ON cards (tenant_id, agent_id) WHERE agent_id IS NOT NULL;
DROP INDEX cards_wallet_idx;
CREATE INDEX cards_wallet_idx ON cards (tenant_id, wallet_id) WHERE wallet_id IS NOT NULL;
DROP INDEX card_authorizations_card_idx;
CREATE INDEX card_authorizations_card_idx ON card_authorizations (tenant_id, card_id, id);
DROP INDEX card_authorizations_card_created_idx;
CREATE INDEX card_authorizations_card_created_idx ON card_authorizations (tenant_id, card_id, created_at DESC, id DESC);
DROP INDEX agent_card_spend_agent_idx;
CREATE INDEX agent_card_spend_agent_idx ON agent_card_spend (tenant_id, agent_id, month_start) WHERE released_at IS NULL;

ALTER TABLE cards ADD CONSTRAINT cards_cardholder_id_fkey
    FOREIGN KEY (tenant_id, cardholder_id) REFERENCES cardholders (tenant_id, id);
ALTER TABLE card_authorizations ADD CONSTRAINT card_authorizations_card_id_fkey
    FOREIGN KEY (tenant_id, card_id) REFERENCES cards (tenant_id, id);
ALTER TABLE card_spend_windows ADD CONSTRAINT card_spend_windows_card_id_fkey
    FOREIGN KEY (tenant_id, card_id) REFERENCES cards (tenant_id, id);
ALTER TABLE agent_card_spend ADD CONSTRAINT agent_card_spend_agent_id_fkey
    FOREIGN KEY (tenant_id, agent_id) REFERENCES agents (tenant_id, id);

-- A key's agent: on a Citus database whose api_keys is already distributed while agents is
-- still local, Citus refuses the key until agents is distributed too; `corridor migrate`
-- distributes agents next, and the key stays off there (docs/scaling.md).
DO $$
DECLARE
    keys_distributed boolean := false;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        EXECUTE $q$SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'api_keys'::regclass)$q$
            INTO keys_distributed;
    END IF;
    IF NOT keys_distributed THEN
        ALTER TABLE api_keys ADD CONSTRAINT api_keys_agent_id_fkey
            FOREIGN KEY (tenant_id, agent_id) REFERENCES agents (tenant_id, id);
    END IF;
END
$$;

-- The decision's lock and reads, now naming the tenant in every statement (one shard group).
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
               WHERE a.tenant_id = p_tenant AND a.environment = p_environment AND a.detached_at IS NULL
                 AND ((a.subject_type = 'card' AND a.subject_id = c.id)
                   OR (a.subject_type = 'wallet' AND a.subject_id = c.wallet_id)
                   OR (a.subject_type = 'agent' AND a.subject_id = c.agent_id)))
    FROM card_spend_windows w
    WHERE w.tenant_id = p_tenant AND w.card_id = p_id AND w.window_key IN (p_day, p_week, p_month);
END
$$;
