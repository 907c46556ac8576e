-- Cards (docs/decisions/cards.md): cardholders, issued cards with their limits, every authorization
-- decision with its reason and the window keys it consumed, and per-card spend accumulators
-- per window (a UTC day "2026-03-01", an ISO week "2026-W09", a calendar month "2026-03").
CREATE TABLE cardholders (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants (id),
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    name        text NOT NULL,
    email       text NOT NULL,
    created_at  timestamptz NOT NULL
);
CREATE INDEX cardholders_tenant_env_idx ON cardholders (tenant_id, environment, id);

CREATE TABLE cards (
    id                     text PRIMARY KEY,
    tenant_id              text NOT NULL REFERENCES tenants (id),
    environment            text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    funding                text NOT NULL CHECK (funding IN ('SAFE', 'FUNDING_ACCOUNT')),
    wallet_id              text REFERENCES wallets (id),
    safe_address           text,
    cardholder_id          text REFERENCES cardholders (id),
    agent_id               text,
    issuer                 text NOT NULL,
    issuer_card_id         text NOT NULL,
    last4                  text NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
    funding_account_id     text,
    chain                  text CHECK (chain IN ('solana', 'world_chain', 'base')),
    crypto_account_address text,
    crypto_account_type    text CHECK (crypto_account_type IN ('standard', 'bridge_wallet')),
    status                 text NOT NULL CHECK (status IN ('active', 'inactive')),
    per_transaction_limit  bigint CHECK (per_transaction_limit > 0),
    daily_limit            bigint CHECK (daily_limit > 0),
    weekly_limit           bigint CHECK (weekly_limit > 0),
    monthly_limit          bigint CHECK (monthly_limit > 0),
    blocked_mcc            jsonb NOT NULL,
    allowed_mcc            jsonb,
    created_at             timestamptz NOT NULL,
    updated_at             timestamptz NOT NULL,
    UNIQUE (issuer, issuer_card_id),
    CHECK ((funding = 'SAFE') = (wallet_id IS NOT NULL AND safe_address IS NOT NULL)),
    CHECK ((funding = 'FUNDING_ACCOUNT') = (cardholder_id IS NOT NULL))
);
CREATE INDEX cards_tenant_env_idx ON cards (tenant_id, environment, id);
CREATE INDEX cards_wallet_idx ON cards (wallet_id) WHERE wallet_id IS NOT NULL;

CREATE TABLE card_authorizations (
    id                 text PRIMARY KEY,
    tenant_id          text NOT NULL REFERENCES tenants (id),
    environment        text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    card_id            text NOT NULL REFERENCES cards (id),
    amount_base_units  bigint NOT NULL CHECK (amount_base_units > 0),
    captured_base_units bigint NOT NULL CHECK (captured_base_units >= 0 AND captured_base_units <= amount_base_units),
    mcc                text NOT NULL CHECK (mcc ~ '^[0-9]{4}$'),
    merchant_name      text NOT NULL,
    counterparty       text,
    status             text NOT NULL CHECK (status IN ('APPROVED', 'DECLINED', 'CAPTURED', 'REVERSED')),
    decline_reason     text,
    day_key            text NOT NULL,
    week_key           text NOT NULL,
    month_key          text NOT NULL,
    hold_transfer_id   text,
    policy_id          text,
    policy_decision_id text,
    settlement_status  text CHECK (settlement_status IN ('PENDING', 'SUBMITTED', 'CONFIRMED', 'FAILED', 'OFF_CHAIN')),
    settlement_tx_hash text,
    settlement_error   text,
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL,
    CHECK ((status = 'DECLINED') = (decline_reason IS NOT NULL)),
    CHECK ((status = 'CAPTURED') = (settlement_status IS NOT NULL))
);
CREATE INDEX card_authorizations_card_idx ON card_authorizations (card_id, id);
CREATE INDEX card_authorizations_unsettled_idx ON card_authorizations (updated_at)
    WHERE settlement_status IN ('PENDING', 'SUBMITTED');

-- What each card has consumed per window: approvals add, reversals and partial captures give
-- back to the authorization's own windows. Updated under the card's row lock.
CREATE TABLE card_spend_windows (
    card_id          text NOT NULL REFERENCES cards (id),
    window_key       text NOT NULL,
    spent_base_units bigint NOT NULL CHECK (spent_base_units >= 0),
    PRIMARY KEY (card_id, window_key)
);

-- The card authorization gate records its policy decisions with source CARD.
ALTER TABLE policy_decisions DROP CONSTRAINT policy_decisions_source_check;
ALTER TABLE policy_decisions ADD CONSTRAINT policy_decisions_source_check
    CHECK (source IN ('EVALUATE', 'PAYMENT', 'OFFRAMP', 'CARD'));
