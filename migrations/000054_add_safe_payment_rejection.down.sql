ALTER TABLE safe_payments
    DROP COLUMN rejects_payment_id,
    DROP COLUMN rejection_payment_id;
