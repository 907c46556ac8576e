DELETE FROM twofactor_factors WHERE status = 'CANCELLED';
ALTER TABLE twofactor_factors DROP CONSTRAINT twofactor_factors_cancelled;
ALTER TABLE twofactor_factors DROP CONSTRAINT twofactor_factors_status_check;
ALTER TABLE twofactor_factors ADD CONSTRAINT twofactor_factors_status_check CHECK (status IN ('PENDING', 'ACTIVE'));
ALTER TABLE twofactor_factors DROP CONSTRAINT twofactor_factors_attempts_check;
ALTER TABLE twofactor_factors DROP COLUMN attempts;
