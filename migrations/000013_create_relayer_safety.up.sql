-- Relayer-paid transactions counted per tenant, environment and UTC day (docs/security.md,
-- "Relayer budget"): the unit of work that enqueues a relayer-paid transaction (a Safe
-- deployment, a Safe payment execution, a claim escrow funding) charges one here, refused past
-- RELAYER_TX_BUDGET, so every replica counts against the same number.
CREATE TABLE relayer_tx_counts (
    tenant_id   text NOT NULL REFERENCES tenants (id),
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    day         date NOT NULL,
    count       integer NOT NULL CHECK (count > 0),
    PRIMARY KEY (tenant_id, environment, day)
);

-- The stuck-execution reaper looks for Safe payments EXECUTING without progress.
CREATE INDEX safe_payments_executing_idx ON safe_payments (updated_at) WHERE status = 'EXECUTING';

-- The relayer's next nonce per chain and key, taken under this row's lock by every replica
-- (adapters/postgres RelayerNonces), so two replicas never sign one nonce.
CREATE TABLE relayer_nonces (
    chain_id   bigint NOT NULL,
    address    text NOT NULL,
    next_nonce bigint NOT NULL CHECK (next_nonce >= 0),
    PRIMARY KEY (chain_id, address)
);
