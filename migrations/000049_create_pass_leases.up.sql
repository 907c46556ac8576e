-- One lease per periodic pass (issue #32): a River periodic job runs only while its replica
-- holds the lease, so a pass whose run outlasts its interval, or one enqueued twice across a
-- leader change, never runs on two replicas at once. A holder renews expires_at while it runs;
-- a crashed holder's lease lapses by itself.
CREATE TABLE pass_leases (
    name text PRIMARY KEY,
    holder text NOT NULL,
    expires_at timestamptz NOT NULL
);
