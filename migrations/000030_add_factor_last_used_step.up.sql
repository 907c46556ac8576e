-- A TOTP code is accepted once (RFC 6238): the time step of the last code a factor
-- accepted; a code of that step or an earlier one is refused.
ALTER TABLE twofactor_factors ADD COLUMN last_used_step bigint NOT NULL DEFAULT 0 CHECK (last_used_step >= 0);
