ALTER TABLE twofactor_factors DROP COLUMN last_used_step;
