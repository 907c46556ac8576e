-- One row per running job worker (one River client, one process incarnation). The worker
-- renews heartbeat_at every couple of seconds; a row whose heartbeat is stale belongs to a
-- process that died, and any live worker then puts the jobs that process held back to work
-- at once (instead of waiting for River's stuck-job timeout, sized for slow jobs). replica
-- names the replica across restarts, so a restarted process rescues its previous
-- incarnation's jobs as it starts.
CREATE TABLE job_workers (
    client_id text PRIMARY KEY,
    replica text NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX job_workers_replica_idx ON job_workers (replica);
