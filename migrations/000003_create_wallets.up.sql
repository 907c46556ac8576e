CREATE TABLE wallets (
    id               text PRIMARY KEY,
    tenant_id        text NOT NULL REFERENCES tenants (id),
    environment      text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    name             text NOT NULL,
    chain_id         bigint NOT NULL,
    address          text NOT NULL,
    owners           jsonb NOT NULL,
    threshold        integer NOT NULL CHECK (threshold >= 1),
    status           text NOT NULL CHECK (status IN ('PENDING_DEPLOYMENT', 'DEPLOYING', 'DEPLOYED', 'FAILED')),
    deploy_tx_hash   text,
    deploy_attempts  integer NOT NULL DEFAULT 0,
    failure_reason   text,
    created_at       timestamptz NOT NULL,
    deployed_at      timestamptz,
    CONSTRAINT wallets_chain_address_key UNIQUE (chain_id, address)
);
CREATE INDEX wallets_tenant_env_idx ON wallets (tenant_id, environment, id);

-- Safe payments (docs/api.md Safe payment). Signatures are kept with their signer, in order.
CREATE TABLE safe_payments (
    id                    text PRIMARY KEY,
    tenant_id             text NOT NULL REFERENCES tenants (id),
    environment           text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    source_wallet_id      text NOT NULL REFERENCES wallets (id),
    safe_address          text NOT NULL,
    chain_id              bigint NOT NULL,
    destination_type      text NOT NULL CHECK (destination_type IN ('handle', 'email', 'address', 'wallet')),
    destination_handle    text,
    destination_address   text NOT NULL,
    destination_wallet_id text,
    destination_chain_id  bigint NOT NULL,
    asset                 text NOT NULL,
    amount_base_units     bigint NOT NULL CHECK (amount_base_units > 0),
    memo                  text,
    status                text NOT NULL CHECK (status IN ('CREATED', 'AWAITING_SIGNATURE', 'READY_TO_EXECUTE', 'EXECUTING', 'COMPLETED', 'FAILED', 'CANCELLED')),
    safe_nonce            bigint NOT NULL,
    safe_tx_hash          text,
    threshold             integer NOT NULL,
    signatures            jsonb NOT NULL DEFAULT '[]',
    executed_tx_hash      text,
    failure_reason        text,
    created_at            timestamptz NOT NULL,
    updated_at            timestamptz NOT NULL
);
CREATE INDEX safe_payments_tenant_env_idx ON safe_payments (tenant_id, environment, id);
CREATE INDEX safe_payments_wallet_pending_idx ON safe_payments (source_wallet_id, safe_nonce)
    WHERE status IN ('CREATED', 'AWAITING_SIGNATURE', 'READY_TO_EXECUTE', 'EXECUTING');

-- Directory handles (PUT /v1/directory/handle): a handle names one wallet per environment.
CREATE TABLE handles (
    environment  text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    handle       text NOT NULL,
    tenant_id    text NOT NULL REFERENCES tenants (id),
    wallet_id    text NOT NULL REFERENCES wallets (id),
    display_name text,
    verified     boolean NOT NULL DEFAULT false,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    PRIMARY KEY (environment, handle)
);
CREATE INDEX handles_wallet_idx ON handles (wallet_id);
