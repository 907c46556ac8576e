-- A PENDING factor counts the wrong codes of its activation; the fifth cancels it (CANCELLED:
-- never activated, the tenant enrolls again).
ALTER TABLE twofactor_factors ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE twofactor_factors ADD CONSTRAINT twofactor_factors_attempts_check CHECK (attempts >= 0 AND attempts <= 5);
ALTER TABLE twofactor_factors DROP CONSTRAINT twofactor_factors_status_check;
ALTER TABLE twofactor_factors ADD CONSTRAINT twofactor_factors_status_check CHECK (status IN ('PENDING', 'ACTIVE', 'CANCELLED'));
ALTER TABLE twofactor_factors ADD CONSTRAINT twofactor_factors_cancelled CHECK ((status = 'CANCELLED') = (attempts = 5));
