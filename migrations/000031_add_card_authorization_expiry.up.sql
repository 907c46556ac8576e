-- Why an authorization was reversed: MERCHANT (the acquirer reversed it) or EXPIRED (it stayed
-- APPROVED, never captured, past the authorization lifetime, and the expiry pass released it).
ALTER TABLE card_authorizations ADD COLUMN reversal_reason text CHECK (reversal_reason IN ('MERCHANT', 'EXPIRED'));
UPDATE card_authorizations SET reversal_reason = 'MERCHANT' WHERE status = 'REVERSED';
ALTER TABLE card_authorizations ADD CONSTRAINT card_authorizations_reversal_reason
    CHECK ((status = 'REVERSED') = (reversal_reason IS NOT NULL));
-- The expiry pass finds open approvals oldest first.
CREATE INDEX card_authorizations_open_idx ON card_authorizations (created_at) WHERE status = 'APPROVED';
