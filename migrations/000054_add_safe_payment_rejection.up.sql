-- Cancelling a payment with later payments queued behind it proposes a rejection transaction at
-- its Safe nonce (a zero-value call of the Safe itself), so the later payments stay executable.
-- The two columns link the cancelled payment and its rejection both ways.
ALTER TABLE safe_payments
    ADD COLUMN rejection_payment_id text,
    ADD COLUMN rejects_payment_id text;
