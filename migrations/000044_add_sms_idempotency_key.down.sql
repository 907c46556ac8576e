DROP INDEX sms_messages_idempotency_key;
ALTER TABLE sms_messages DROP COLUMN idempotency_key;
