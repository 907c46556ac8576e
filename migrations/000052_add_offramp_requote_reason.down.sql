ALTER TABLE offramp_payments DROP COLUMN requote_reason;
