-- Agents: tenant-owned principals with scoped keys and USD spend caps (base units, 6 decimals).
CREATE TABLE agents (
    id text PRIMARY KEY,
    tenant_id text NOT NULL,
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    name text NOT NULL,
    status text NOT NULL CHECK (status IN ('ACTIVE', 'SUSPENDED')),
    wallet_id text UNIQUE,
    per_transaction_base_units bigint CHECK (per_transaction_base_units > 0),
    daily_base_units bigint CHECK (daily_base_units > 0),
    weekly_base_units bigint CHECK (weekly_base_units > 0),
    monthly_base_units bigint CHECK (monthly_base_units > 0),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    suspended_at timestamptz,
    CONSTRAINT agents_suspended_at CHECK ((status = 'SUSPENDED') = (suspended_at IS NOT NULL))
);
CREATE INDEX agents_tenant_idx ON agents (tenant_id, environment, created_at, id);

-- An agent key is an API key whose principal is the agent.
ALTER TABLE api_keys ADD COLUMN agent_id text REFERENCES agents (id);
CREATE INDEX api_keys_agent_idx ON api_keys (agent_id) WHERE agent_id IS NOT NULL;

-- The budget each card authorization of an agent consumed, with the windows it was counted
-- in, so a reversal credits the original windows.
CREATE TABLE agent_card_spend (
    authorization_id text PRIMARY KEY,
    agent_id text NOT NULL REFERENCES agents (id),
    tenant_id text NOT NULL,
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    amount_base_units bigint NOT NULL CHECK (amount_base_units > 0),
    day_start timestamptz NOT NULL,
    week_start timestamptz NOT NULL,
    month_start timestamptz NOT NULL,
    consumed_at timestamptz NOT NULL,
    released_at timestamptz
);
CREATE INDEX agent_card_spend_agent_idx ON agent_card_spend (agent_id, month_start) WHERE released_at IS NULL;

-- Spend and activity read an agent wallet's payments and the decisions about it.
CREATE INDEX safe_payments_source_created_idx ON safe_payments (source_wallet_id, created_at DESC, id DESC);
CREATE INDEX policy_decisions_subject_idx ON policy_decisions (tenant_id, environment, subject_type, subject_id, created_at DESC, id DESC);
