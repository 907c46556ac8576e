-- Escrow invoices: a 2-of-3 hold Safe (a wallet of purpose ESCROW) per invoice, and the
-- settlement payment that releases it to the payee or refunds it to the payer.
CREATE TABLE invoices (
    id                   text PRIMARY KEY,
    tenant_id            text NOT NULL REFERENCES tenants (id),
    environment          text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    payee_name           text NOT NULL DEFAULT '',
    description          text NOT NULL DEFAULT '',
    amount_base_units    bigint NOT NULL CHECK (amount_base_units > 0),
    payer_address        text NOT NULL,
    payee_address        text NOT NULL,
    arbiter_address      text NOT NULL,
    chain_id             bigint NOT NULL,
    status               text NOT NULL CHECK (status IN ('DRAFT', 'SENT', 'FUNDED', 'DELIVERED', 'EXPIRED', 'RELEASED', 'REFUNDED', 'CANCELLED')),
    hold_wallet_id       text UNIQUE REFERENCES wallets (id),
    release_payment_id   text REFERENCES safe_payments (id),
    refund_payment_id    text REFERENCES safe_payments (id),
    evidence             text NOT NULL DEFAULT '',
    expires_at           timestamptz,
    funded_at            timestamptz,
    clock_offset_seconds bigint NOT NULL DEFAULT 0 CHECK (clock_offset_seconds >= 0),
    created_at           timestamptz NOT NULL,
    updated_at           timestamptz NOT NULL,
    CHECK (lower(payer_address) <> lower(payee_address) AND lower(payer_address) <> lower(arbiter_address)
           AND lower(payee_address) <> lower(arbiter_address)),
    CHECK (status = 'DRAFT' OR status = 'CANCELLED' OR hold_wallet_id IS NOT NULL),
    CHECK (release_payment_id IS NULL OR refund_payment_id IS NULL)
);
CREATE INDEX invoices_tenant_idx ON invoices (tenant_id, environment, created_at DESC, id);
-- The balance poller's work list: invoices waiting for funds or for their settlement.
CREATE INDEX invoices_poll_idx ON invoices (environment, id)
    WHERE status = 'SENT' OR release_payment_id IS NOT NULL OR refund_payment_id IS NOT NULL;

-- Verifiable bills between tenants, signed with an EIP-712 InvoiceAuthorization.
CREATE TABLE bills (
    id                        text PRIMARY KEY,
    environment               text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    sender_tenant_id          text NOT NULL REFERENCES tenants (id),
    payer_tenant_id           text NOT NULL REFERENCES tenants (id),
    amount_base_units         bigint NOT NULL CHECK (amount_base_units > 0),
    payer_address             text NOT NULL,
    payee_address             text NOT NULL,
    payee_name                text NOT NULL DEFAULT '',
    description               text NOT NULL DEFAULT '',
    chain_id                  bigint NOT NULL,
    sender_address            text NOT NULL,
    signature                 text NOT NULL,
    sig_nonce                 text NOT NULL CHECK (sig_nonce ~ '^(0|[1-9][0-9]{0,77})$'),
    sig_expires_at            timestamptz NOT NULL,
    doc_hash                  text NOT NULL,
    domain_chain_id           bigint NOT NULL,
    domain_verifying_contract text NOT NULL,
    verification_status       text NOT NULL CHECK (verification_status IN ('UNVERIFIED', 'VERIFIED', 'FAILED')),
    failure_reason            text NOT NULL DEFAULT '',
    payer_decision            text CHECK (payer_decision IN ('ACCEPTED')),
    payer_payment_id          text REFERENCES safe_payments (id),
    created_at                timestamptz NOT NULL
);
CREATE INDEX bills_payer_idx ON bills (payer_tenant_id, environment, created_at DESC, id);
-- A nonce is single-use per signer: two replays racing cannot both be VERIFIED.
CREATE UNIQUE INDEX bills_signer_nonce_key ON bills (environment, lower(sender_address), sig_nonce)
    WHERE verification_status = 'VERIFIED';
