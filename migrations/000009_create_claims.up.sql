-- Pending claims of off-ramp payments to a phone number nobody has verified (docs/api.md Claim;
-- docs/architecture.md and docs/decisions/ledger.md). The phone is stored only as its keyed hash, its mask and its AES-GCM
-- ciphertext; link tokens and phone codes only as hashes. Status changes other than expiry come
-- from the claim-escrow contract's indexed events.
CREATE TABLE offramp_claims (
    id                  text PRIMARY KEY,
    -- The escrow's opaque bytes32 key, canonical lower-case hex so lookups by it are exact.
    onchain_id          text NOT NULL CHECK (onchain_id ~ '^0x[0-9a-f]{64}$'),
    environment         text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    payment_id          text NOT NULL REFERENCES offramp_payments (id),
    sender_tenant_id    text NOT NULL REFERENCES tenants (id),
    recipient_tenant_id text REFERENCES tenants (id),
    phone_hash          text NOT NULL CHECK (phone_hash <> ''),
    phone_masked        text NOT NULL,
    phone_ciphertext    bytea NOT NULL CHECK (length(phone_ciphertext) > 0),
    amount_base_units   bigint NOT NULL CHECK (amount_base_units > 0),
    chain_id            bigint NOT NULL CHECK (chain_id > 0),
    chain_key           text NOT NULL,
    asset_id            text NOT NULL,
    metadata_hash       text NOT NULL CHECK (metadata_hash ~ '^0x[0-9a-f]{64}$'),
    status              text NOT NULL CHECK (status IN ('OPEN', 'LOCKED', 'RELEASED', 'REFUNDED', 'EXPIRED', 'CANCELED')),
    funded              boolean NOT NULL DEFAULT false,
    fund_tx_hash        text,
    lock_tx_hash        text,
    release_tx_hash     text,
    refund_tx_hash      text,
    cancel_tx_hash      text,
    decision_hash       text,
    expires_at          timestamptz NOT NULL,
    redeemed_at         timestamptz,
    resend_count        int NOT NULL DEFAULT 0 CHECK (resend_count >= 0),
    resend_window_start timestamptz,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    -- One claim per payment; one claim per escrow id on a chain.
    CONSTRAINT offramp_claims_payment_key UNIQUE (payment_id),
    CONSTRAINT offramp_claims_onchain_key UNIQUE (environment, chain_id, onchain_id)
);
-- The expiry pass reads OPEN and LOCKED claims by expiry, oldest first.
CREATE INDEX offramp_claims_due_idx ON offramp_claims (status, expires_at);
CREATE INDEX offramp_claims_sender_idx ON offramp_claims (sender_tenant_id, environment, id);

-- Claim links: single-use, expiring tokens stored only as their sha256. A resend supersedes
-- the live links of its claim.
CREATE TABLE offramp_claim_links (
    token_hash    text PRIMARY KEY,
    claim_id      text NOT NULL REFERENCES offramp_claims (id),
    environment   text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    expires_at    timestamptz NOT NULL,
    used_at       timestamptz,
    superseded_at timestamptz,
    created_at    timestamptz NOT NULL
);
CREATE INDEX offramp_claim_links_claim_idx ON offramp_claim_links (claim_id);

-- Phone challenges: a 6-digit code sent to the claim's number, stored as a keyed hash. The
-- phone and IP hashes budget how many codes are sent per number and per address.
CREATE TABLE offramp_claim_challenges (
    id                 text PRIMARY KEY,
    claim_id           text NOT NULL REFERENCES offramp_claims (id),
    environment        text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    code_hash          text NOT NULL,
    phone_hash         text NOT NULL,
    ip_hash            text NOT NULL,
    status             text NOT NULL CHECK (status IN ('PENDING', 'VERIFIED', 'CANCELLED', 'CONSUMED')),
    attempts_remaining int NOT NULL CHECK (attempts_remaining >= 0),
    expires_at         timestamptz NOT NULL,
    verified_at        timestamptz,
    consumed_at        timestamptz,
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL
);
CREATE INDEX offramp_claim_challenges_phone_idx ON offramp_claim_challenges (phone_hash, created_at);
CREATE INDEX offramp_claim_challenges_ip_idx ON offramp_claim_challenges (ip_hash, created_at);

-- Escrow logs already applied to their claim, once each: a re-delivered log is recognised by
-- its (chain, transaction, log index).
CREATE TABLE offramp_escrow_events (
    chain_id    bigint NOT NULL CHECK (chain_id > 0),
    tx_hash     text NOT NULL,
    log_index   bigint NOT NULL CHECK (log_index >= 0),
    claim_id    text NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('FUNDED', 'LOCKED', 'RELEASED', 'REFUNDED', 'CANCELED', 'EXPIRY_SHORTENED')),
    recorded_at timestamptz NOT NULL,
    PRIMARY KEY (chain_id, tx_hash, log_index)
);

-- The escrow indexer's position per environment and chain: every escrow log in blocks below
-- next_block has been applied. Separate from the ledger mirror's chain_index_cursors.
CREATE TABLE offramp_escrow_cursors (
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    chain_id    bigint NOT NULL CHECK (chain_id > 0),
    next_block  bigint NOT NULL CHECK (next_block >= 0),
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (environment, chain_id)
);
