-- The onchain payout provider's transfers (D9): one row per payout attempt (idempotency key).
-- sending_at marks a send in progress, so one attempt never sends twice; tx_hash is recorded
-- once the node accepted the USDC transfer, and polls read its receipt.
CREATE TABLE payout_onchain_transfers (
    reference         text PRIMARY KEY,
    idempotency_key   text NOT NULL UNIQUE,
    environment       text NOT NULL,
    to_address        text NOT NULL,
    amount_base_units bigint NOT NULL CHECK (amount_base_units > 0),
    tx_hash           text,
    sending_at        timestamptz,
    created_at        timestamptz NOT NULL
);
