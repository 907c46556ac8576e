ALTER TABLE webhook_endpoints DROP COLUMN enabled_at;
