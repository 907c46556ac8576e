-- Sandbox ramps: an on-ramp links to the drip that credits the wallet's Safe on chain from the
-- platform test pool; an off-ramp links to the Safe payment that debits the Safe to the
-- platform liquidation address. A ramp's status is read from its linked drip or payment.
ALTER TABLE drips ADD COLUMN purpose text NOT NULL DEFAULT 'faucet' CHECK (purpose IN ('faucet', 'ramp'));

CREATE TABLE ramps (
    id                text PRIMARY KEY,
    tenant_id         text NOT NULL REFERENCES tenants (id),
    environment       text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    wallet_id         text NOT NULL REFERENCES wallets (id),
    direction         text NOT NULL CHECK (direction IN ('ON', 'OFF')),
    provider          text NOT NULL CHECK (provider <> ''),
    amount_base_units bigint NOT NULL CHECK (amount_base_units > 0),
    drip_id           text UNIQUE REFERENCES drips (id),
    payment_id        text UNIQUE REFERENCES safe_payments (id),
    created_at        timestamptz NOT NULL,
    CONSTRAINT ramps_linked CHECK ((direction = 'ON' AND drip_id IS NOT NULL AND payment_id IS NULL)
        OR (direction = 'OFF' AND payment_id IS NOT NULL AND drip_id IS NULL))
);
CREATE INDEX ramps_tenant_idx ON ramps (tenant_id, environment, id);
CREATE INDEX ramps_wallet_idx ON ramps (wallet_id, id);
CREATE INDEX ramps_window_idx ON ramps (tenant_id, environment, direction, created_at);
