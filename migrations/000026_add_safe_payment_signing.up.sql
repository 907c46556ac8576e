-- SIGNING: an escrow invoice's settlement payment that holds some but not all of its
-- signatures (docs/api.md Safe payment: one signature moves it to SIGNING, the second executes).
ALTER TABLE safe_payments DROP CONSTRAINT safe_payments_status_check;
ALTER TABLE safe_payments ADD CONSTRAINT safe_payments_status_check
    CHECK (status IN ('CREATED', 'AWAITING_SIGNATURE', 'SIGNING', 'READY_TO_EXECUTE', 'EXECUTING', 'COMPLETED', 'FAILED', 'CANCELLED'));
DROP INDEX safe_payments_wallet_pending_idx;
CREATE INDEX safe_payments_wallet_pending_idx ON safe_payments (source_wallet_id, safe_nonce)
    WHERE status IN ('CREATED', 'AWAITING_SIGNATURE', 'SIGNING', 'READY_TO_EXECUTE', 'EXECUTING');
