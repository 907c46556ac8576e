UPDATE payout_destinations SET status = 'DISABLED' WHERE status = 'REVOKED';
ALTER TABLE payout_destinations DROP CONSTRAINT payout_destinations_status_check;
ALTER TABLE payout_destinations ADD CONSTRAINT payout_destinations_status_check
    CHECK (status IN ('ACTIVE', 'DISABLED'));
