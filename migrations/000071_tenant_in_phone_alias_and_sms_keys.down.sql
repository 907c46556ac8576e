DROP INDEX sms_messages_idempotency_key;
CREATE UNIQUE INDEX sms_messages_idempotency_key ON sms_messages (idempotency_key);
ALTER TABLE sms_messages DROP CONSTRAINT sms_messages_pkey;
ALTER TABLE sms_messages ADD CONSTRAINT sms_messages_pkey PRIMARY KEY (id);

DELETE FROM tenant_lookups WHERE kind = 'phone_alias';
DROP INDEX phone_aliases_verified_key;
CREATE UNIQUE INDEX phone_aliases_verified_key ON phone_aliases (environment, phone_hash) WHERE status = 'VERIFIED';
ALTER TABLE phone_aliases DROP CONSTRAINT phone_aliases_pkey;
ALTER TABLE phone_aliases ADD CONSTRAINT phone_aliases_pkey PRIMARY KEY (id);
