DROP FUNCTION IF EXISTS idempotency_claim(text, text, text, timestamptz);
