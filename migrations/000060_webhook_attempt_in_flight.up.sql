-- An attempt in flight is marked on its delivery before the request is sent and cleared with
-- the attempt's record: a mark found by the next attempt is an attempt cut off by a crash,
-- recorded then with an unknown outcome.
ALTER TABLE webhook_deliveries ADD COLUMN attempt_started_at timestamptz;
ALTER TABLE webhook_attempts ADD COLUMN unknown_outcome boolean NOT NULL DEFAULT false;
