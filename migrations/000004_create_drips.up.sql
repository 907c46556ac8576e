-- Faucet drips (docs/api.md Drip; POST /v1/wallets/{id}/fund). send_started_at is written and
-- committed before the faucet job sends, so a retried job never sends twice for one drip;
-- (chain_id, tx_hash) is unique, so one transaction never confirms two drips.
CREATE TABLE drips (
    id                text PRIMARY KEY,
    tenant_id         text NOT NULL REFERENCES tenants (id),
    environment       text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    wallet_id         text NOT NULL REFERENCES wallets (id),
    address           text NOT NULL,
    chain_id          bigint NOT NULL,
    asset             text NOT NULL CHECK (asset IN ('usdc', 'eth')),
    amount_base_units bigint NOT NULL CHECK (amount_base_units > 0),
    status            text NOT NULL CHECK (status IN ('SUBMITTED', 'CONFIRMED', 'FAILED')),
    tx_hash           text,
    failure_reason    text,
    send_started_at   timestamptz,
    send_from_block   bigint NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    CONSTRAINT drips_chain_tx_hash_key UNIQUE (chain_id, tx_hash),
    CONSTRAINT drips_confirmed_has_hash CHECK (status <> 'CONFIRMED' OR tx_hash IS NOT NULL)
);
-- The rate-limit windows count by tenant and by wallet over created_at; lists page by id.
CREATE INDEX drips_tenant_created_idx ON drips (tenant_id, environment, created_at);
CREATE INDEX drips_wallet_created_idx ON drips (wallet_id, created_at);
