-- The onchain payout provider's transfers (docs/decisions/offramp.md): one row per payout attempt (idempotency key).
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

-- The hold recheck pass's backoff per held payment: how many passes found it still held and
-- when the next may look again.
CREATE TABLE offramp_hold_rechecks (
    payment_id text PRIMARY KEY REFERENCES offramp_payments (id) ON DELETE CASCADE,
    attempts   int NOT NULL CHECK (attempts > 0),
    next_at    timestamptz NOT NULL
);

-- The periodic passes look for payments awaiting confirmation (quote expiry) and held ones.
CREATE INDEX offramp_payments_awaiting_idx ON offramp_payments (id) WHERE status = 'AWAITING_RECIPIENT_CONFIRMATION';
CREATE INDEX offramp_payments_held_idx ON offramp_payments (id) WHERE status IN ('PAYOUT_SELECTION_REQUIRED', 'COMPLIANCE_HOLD');

-- Operators' route liquidity top-ups (docs/decisions/operations.md): each raises the provider's configured per-payout
-- liquidity in one environment; the operator's reference makes a retried top-up harmless.
CREATE TABLE payout_liquidity_top_ups (
    environment       text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    provider          text NOT NULL,
    reference         text NOT NULL CHECK (reference <> ''),
    amount_base_units bigint NOT NULL CHECK (amount_base_units > 0),
    operator          text NOT NULL,
    created_at        timestamptz NOT NULL,
    PRIMARY KEY (environment, provider, reference)
);
