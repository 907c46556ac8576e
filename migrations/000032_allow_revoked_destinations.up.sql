-- A payout provider may report a recipient's destination revoked: it is kept, never routed again.
ALTER TABLE payout_destinations DROP CONSTRAINT payout_destinations_status_check;
ALTER TABLE payout_destinations ADD CONSTRAINT payout_destinations_status_check
    CHECK (status IN ('ACTIVE', 'DISABLED', 'REVOKED'));
