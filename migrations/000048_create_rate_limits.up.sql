-- Rate limits shared by every replica (issue #32). UNLOGGED: a limiter's state is worth no WAL,
-- is not shipped to standbys, and losing it in a crash only forgives callers their recent
-- requests.
--
-- A token bucket as GCRA: tat is the theoretical arrival time of the caller's next request;
-- a request is allowed while tat - now stays within the burst's tolerance.
CREATE UNLOGGED TABLE rate_limit_buckets (
    key text PRIMARY KEY,
    tat timestamptz NOT NULL
);

-- A rolling window: the times of the caller's last requests within it (at most the limit's
-- count, a handful).
CREATE UNLOGGED TABLE rate_limit_windows (
    key text PRIMARY KEY,
    times timestamptz[] NOT NULL,
    expires_at timestamptz NOT NULL
);
