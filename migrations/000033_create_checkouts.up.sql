-- Hosted checkout (docs/checkout.md): a payment request in USD paid in USDC to a fresh
-- CREATE2 deposit address, watched until completed or failed, and its refunds.
CREATE TABLE checkouts (
    id                text PRIMARY KEY,
    tenant_id         text NOT NULL REFERENCES tenants (id),
    environment       text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    chain_id          bigint NOT NULL,
    amount_base_units bigint NOT NULL CHECK (amount_base_units > 0),
    currency          text NOT NULL CHECK (currency = 'USD'),
    cryptocurrency    text NOT NULL CHECK (cryptocurrency = 'USDC'),
    description       text NOT NULL DEFAULT '',
    customer_email    text NOT NULL DEFAULT '',
    customer_name     text NOT NULL DEFAULT '',
    metadata          jsonb NOT NULL DEFAULT '{}'::jsonb,
    deposit_address   text NOT NULL UNIQUE,
    start_block       bigint NOT NULL CHECK (start_block >= 0),
    status            text NOT NULL CHECK (status IN ('CREATED', 'PENDING', 'COMPLETED', 'FAILED')),
    received          bigint NOT NULL DEFAULT 0 CHECK (received >= 0),
    credited          bigint NOT NULL DEFAULT 0 CHECK (credited >= 0 AND credited <= received),
    refunded          bigint NOT NULL DEFAULT 0 CHECK (refunded >= 0 AND refunded <= credited),
    transaction_hash  text NOT NULL DEFAULT '',
    confirmations     bigint NOT NULL DEFAULT 0,
    payer_address     text NOT NULL DEFAULT '',
    failure_reason    text NOT NULL DEFAULT '',
    sweep_tx_hash     text NOT NULL DEFAULT '',
    expires_at        timestamptz NOT NULL,
    watch_until       timestamptz NOT NULL,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    completed_at      timestamptz
);

CREATE INDEX checkouts_watched ON checkouts (environment, watch_until, id);

CREATE TABLE checkout_refunds (
    id                text PRIMARY KEY,
    checkout_id       text NOT NULL REFERENCES checkouts (id),
    tenant_id         text NOT NULL REFERENCES tenants (id),
    environment       text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    amount_base_units bigint NOT NULL CHECK (amount_base_units > 0),
    destination       text NOT NULL,
    status            text NOT NULL CHECK (status IN ('PENDING', 'PROCESSED')),
    tx_hash           text NOT NULL DEFAULT '',
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL
);

CREATE INDEX checkout_refunds_checkout ON checkout_refunds (checkout_id, id);
