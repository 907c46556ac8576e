-- Phone-addressed off-ramp payments (docs/api.md; docs/decisions/offramp.md–docs/decisions/ledger.md). Phone numbers and payout
-- identifiers are stored only AES-GCM encrypted plus a keyed lookup hash; responses use the
-- masked column.
CREATE TABLE phone_aliases (
    id               text PRIMARY KEY,
    tenant_id        text NOT NULL REFERENCES tenants (id),
    environment      text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    phone_hash       text NOT NULL,
    phone_ciphertext bytea NOT NULL,
    masked           text NOT NULL,
    status           text NOT NULL CHECK (status IN ('PENDING_VERIFICATION', 'VERIFIED', 'FAILED')),
    code_hash        text NOT NULL DEFAULT '',
    attempts         int NOT NULL DEFAULT 0 CHECK (attempts BETWEEN 0 AND 5),
    code_expires_at  timestamptz NOT NULL,
    verified_at      timestamptz,
    created_at       timestamptz NOT NULL
);
-- One tenant per number (docs/decisions/offramp.md): at most one VERIFIED alias per number and environment.
CREATE UNIQUE INDEX phone_aliases_verified_key ON phone_aliases (environment, phone_hash) WHERE status = 'VERIFIED';
CREATE INDEX phone_aliases_tenant_idx ON phone_aliases (tenant_id, environment, id);

CREATE TABLE recipient_credentials (
    tenant_id   text NOT NULL REFERENCES tenants (id),
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    type        text NOT NULL CHECK (type = 'BUSINESS_IDENTITY'),
    status      text NOT NULL CHECK (status IN ('ACTIVE', 'EXPIRED', 'REVOKED', 'SUSPENDED')),
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, environment, type)
);

CREATE TABLE payout_destinations (
    id                       text PRIMARY KEY,
    tenant_id                text NOT NULL REFERENCES tenants (id),
    environment              text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    type                     text NOT NULL,
    status                   text NOT NULL CHECK (status IN ('ACTIVE', 'DISABLED')),
    masked                   text NOT NULL,
    allow_automatic_fallback boolean NOT NULL,
    identifier_ciphertext    bytea,
    created_at               timestamptz NOT NULL
);
CREATE INDEX payout_destinations_tenant_idx ON payout_destinations (tenant_id, environment, id);

CREATE TABLE offramp_payments (
    id                       text PRIMARY KEY,
    environment              text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    sender_tenant_id         text NOT NULL REFERENCES tenants (id),
    recipient_tenant_id      text REFERENCES tenants (id),
    recipient_phone_hash     text NOT NULL,
    recipient_phone_masked   text NOT NULL,
    claim_id                 text,
    source_chain_key         text NOT NULL,
    source_asset_id          text NOT NULL,
    source_amount_base_units bigint NOT NULL CHECK (source_amount_base_units > 0),
    funding_mode             text NOT NULL,
    requested_destination_id text,
    speed_preference         text NOT NULL,
    status                   text NOT NULL,
    hold_reasons             text[] NOT NULL DEFAULT '{}',
    selected_quote_id        text,
    quote_set_version        int NOT NULL DEFAULT 0,
    reservation              int NOT NULL DEFAULT 0,
    hold_transfer_id         text,
    attempt                  int NOT NULL DEFAULT 0,
    provider                 text,
    provider_reference       text,
    failure_reason           text,
    delivered_at             timestamptz,
    created_at               timestamptz NOT NULL,
    updated_at               timestamptz NOT NULL,
    CONSTRAINT offramp_payments_delivered_at CHECK (status <> 'DELIVERED' OR delivered_at IS NOT NULL)
);
CREATE INDEX offramp_payments_sender_idx ON offramp_payments (sender_tenant_id, environment, id);
CREATE INDEX offramp_payments_recipient_idx ON offramp_payments (recipient_tenant_id, environment, id);
CREATE UNIQUE INDEX offramp_payments_provider_ref_key ON offramp_payments (provider, provider_reference)
    WHERE provider_reference IS NOT NULL;
CREATE INDEX offramp_payments_status_idx ON offramp_payments (status);

-- Quotes are immutable rows; only status moves (ACTIVE → SUPERSEDED or EXPIRED).
CREATE TABLE route_quotes (
    id                         text PRIMARY KEY,
    payment_id                 text NOT NULL REFERENCES offramp_payments (id),
    set_version                int NOT NULL,
    position                   int NOT NULL,
    destination_id             text NOT NULL REFERENCES payout_destinations (id),
    destination_type           text NOT NULL,
    provider                   text NOT NULL,
    source_amount_base_units   bigint NOT NULL,
    source_asset_id            text NOT NULL,
    destination_amount_minor   bigint NOT NULL,
    destination_currency       text NOT NULL,
    provider_fee_minor         bigint NOT NULL,
    network_fee_minor          bigint NOT NULL,
    exchange_rate              text NOT NULL,
    estimated_delivery_seconds int NOT NULL,
    requires_bridge            boolean NOT NULL,
    requires_conversion        boolean NOT NULL,
    requires_prefunding        boolean NOT NULL,
    status                     text NOT NULL CHECK (status IN ('ACTIVE', 'SUPERSEDED', 'EXPIRED')),
    deliver_base_units         bigint NOT NULL CHECK (deliver_base_units > 0),
    fee_base_units             bigint NOT NULL CHECK (fee_base_units >= 0),
    quote_expires_at           timestamptz NOT NULL,
    created_at                 timestamptz NOT NULL,
    CONSTRAINT route_quotes_sum CHECK (deliver_base_units + fee_base_units = source_amount_base_units)
);
CREATE INDEX route_quotes_payment_idx ON route_quotes (payment_id, set_version, position);

CREATE TABLE offramp_returns (
    payment_id        text PRIMARY KEY REFERENCES offramp_payments (id),
    transfer_id       text NOT NULL,
    amount_base_units bigint NOT NULL CHECK (amount_base_units > 0),
    created_at        timestamptz NOT NULL
);

CREATE TABLE provider_events (
    provider    text NOT NULL,
    event_id    text NOT NULL,
    received_at timestamptz NOT NULL,
    PRIMARY KEY (provider, event_id)
);

CREATE TABLE sms_messages (
    id            text PRIMARY KEY,
    tenant_id     text NOT NULL REFERENCES tenants (id),
    environment   text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    to_hash       text NOT NULL,
    to_masked     text NOT NULL,
    to_ciphertext bytea NOT NULL,
    body          text NOT NULL,
    purpose       text NOT NULL,
    created_at    timestamptz NOT NULL
);
CREATE INDEX sms_messages_tenant_idx ON sms_messages (tenant_id, environment, id);

-- The mock payout provider's scripted payouts (docs/decisions/offramp.md): one row per idempotency key.
CREATE TABLE payout_mock_transfers (
    provider          text NOT NULL,
    reference         text NOT NULL,
    idempotency_key   text NOT NULL,
    amount_base_units bigint NOT NULL,
    step              int NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL,
    PRIMARY KEY (provider, reference),
    CONSTRAINT payout_mock_transfers_key UNIQUE (provider, idempotency_key)
);
