-- Why the pre-submission re-check last sent a confirmed payment back to quoting (QUOTE_EXPIRED,
-- DESTINATION_UNAVAILABLE, ...); NULL when it never did or once the recipient confirmed again.
ALTER TABLE offramp_payments ADD COLUMN requote_reason text;
