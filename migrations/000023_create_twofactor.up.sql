-- Contacts: a tenant's saved payees per environment, with the time they were saved (the
-- cooling-off window runs from it).
CREATE TABLE contacts (
    id text PRIMARY KEY,
    tenant_id text NOT NULL,
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    address text NOT NULL,
    address_lower text NOT NULL,
    label text NOT NULL,
    chain_id bigint NOT NULL,
    created_at timestamptz NOT NULL,
    CONSTRAINT contacts_address_key UNIQUE (tenant_id, environment, address_lower)
);
CREATE INDEX contacts_tenant_idx ON contacts (tenant_id, environment, created_at, id);

-- TOTP factors of a tenant per environment; the secret is AES-GCM ciphertext.
CREATE TABLE twofactor_factors (
    id text PRIMARY KEY,
    tenant_id text NOT NULL,
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    type text NOT NULL CHECK (type IN ('totp')),
    label text NOT NULL,
    status text NOT NULL CHECK (status IN ('PENDING', 'ACTIVE')),
    secret_ciphertext bytea NOT NULL,
    created_at timestamptz NOT NULL,
    verified_at timestamptz,
    CONSTRAINT twofactor_factors_verified_at CHECK ((status = 'ACTIVE') = (verified_at IS NOT NULL))
);
CREATE INDEX twofactor_factors_tenant_idx ON twofactor_factors (tenant_id, environment, created_at, id);

-- Which Safe payments need approval, per tenant and environment.
CREATE TABLE twofactor_settings (
    tenant_id text NOT NULL,
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    approval_above_base_units bigint CHECK (approval_above_base_units >= 0),
    approve_new_payees boolean NOT NULL,
    require_saved_payees boolean NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, environment)
);

-- Challenges bound to one proposed transaction (binding: hex SHA-256).
CREATE TABLE twofactor_challenges (
    id text PRIMARY KEY,
    tenant_id text NOT NULL,
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    binding text NOT NULL,
    source_wallet_id text NOT NULL,
    amount_base_units bigint NOT NULL CHECK (amount_base_units >= 0),
    destination_address text NOT NULL,
    destination_label text NOT NULL,
    status text NOT NULL CHECK (status IN ('PENDING', 'SATISFIED', 'REDEEMED', 'CANCELLED')),
    attempts integer NOT NULL CHECK (attempts >= 0),
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    satisfied_at timestamptz,
    redeemed_at timestamptz,
    payment_id text,
    CONSTRAINT twofactor_challenges_redeemed CHECK ((status = 'REDEEMED') = (payment_id IS NOT NULL AND redeemed_at IS NOT NULL))
);
CREATE INDEX twofactor_challenges_tenant_idx ON twofactor_challenges (tenant_id, environment, created_at);

-- Transaction proposals (POST /v1/wallets/{id}/transactions) are Safe payments of kind
-- 'transaction': a CALL of destination_address with call_value wei and call_data, declaring no
-- USDC amount (the ledger mirror books whatever USDC the call moves).
ALTER TABLE safe_payments ADD COLUMN kind text NOT NULL DEFAULT 'transfer' CHECK (kind IN ('transfer', 'transaction'));
ALTER TABLE safe_payments ADD COLUMN call_value text CHECK (call_value ~ '^[0-9]{1,78}$');
ALTER TABLE safe_payments ADD COLUMN call_data bytea;
ALTER TABLE safe_payments DROP CONSTRAINT safe_payments_amount_base_units_check;
ALTER TABLE safe_payments ADD CONSTRAINT safe_payments_kind_shape CHECK (
    (kind = 'transfer' AND amount_base_units > 0 AND call_value IS NULL AND call_data IS NULL)
    OR (kind = 'transaction' AND amount_base_units = 0 AND call_value IS NOT NULL AND call_data IS NOT NULL));
