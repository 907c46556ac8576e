DROP INDEX sms_messages_created_idx;
DELETE FROM sms_messages;
ALTER TABLE sms_messages DROP COLUMN body_ciphertext;
ALTER TABLE sms_messages ADD COLUMN body text NOT NULL;
DROP INDEX phone_aliases_pending_idx;
DROP TABLE phone_alias_attempts;
