-- A text is sent after commit by an outbox job (docs/decisions/reliability.md); the key derived from the
-- business object (an alias's code, a claim challenge, a claim link) keeps a retried job from
-- sending it twice.
ALTER TABLE sms_messages ADD COLUMN idempotency_key text;
CREATE UNIQUE INDEX sms_messages_idempotency_key ON sms_messages (idempotency_key);
