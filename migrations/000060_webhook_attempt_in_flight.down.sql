ALTER TABLE webhook_attempts DROP COLUMN unknown_outcome;
ALTER TABLE webhook_deliveries DROP COLUMN attempt_started_at;
