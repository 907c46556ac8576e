-- Phone-alias code budgets: every code sent and every wrong code for a phone alias, counted
-- per phone (and environment), per tenant (and environment) and per client IP over a window.
CREATE TABLE phone_alias_attempts (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    kind        text NOT NULL CHECK (kind IN ('CODE_SENT', 'CODE_FAILED')),
    phone_hash  text NOT NULL,
    tenant_id   text NOT NULL REFERENCES tenants (id),
    ip_hash     text NOT NULL,
    created_at  timestamptz NOT NULL
);
CREATE INDEX phone_alias_attempts_phone_idx ON phone_alias_attempts (environment, phone_hash, created_at);
CREATE INDEX phone_alias_attempts_tenant_idx ON phone_alias_attempts (tenant_id, environment, created_at);
CREATE INDEX phone_alias_attempts_ip_idx ON phone_alias_attempts (ip_hash, created_at);
CREATE INDEX phone_aliases_pending_idx ON phone_aliases (tenant_id, environment, code_expires_at)
    WHERE status = 'PENDING_VERIFICATION';

-- SMS bodies (codes, claim links) are stored only encrypted, bound to the message id. The
-- outbox is a sandbox convenience: messages written in clear before this are dropped.
DELETE FROM sms_messages;
ALTER TABLE sms_messages DROP COLUMN body;
ALTER TABLE sms_messages ADD COLUMN body_ciphertext bytea NOT NULL;
CREATE INDEX sms_messages_created_idx ON sms_messages (created_at);
