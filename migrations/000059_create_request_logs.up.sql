-- The request log: one row per API request a tenant's credential made, kept 7 days (a periodic
-- job deletes older rows). No request body, header or secret is stored: the route template, the
-- status, the request id, which key (or session user) called, the latency and, for an answer of
-- 400 or more, the error envelope. The tenant leads every key, so the table is distributed by
-- tenant on Citus.
CREATE TABLE request_logs (
    tenant_id       text        NOT NULL,
    id              text        NOT NULL,
    environment     text        NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    method          text        NOT NULL,
    route           text        NOT NULL,
    status          integer     NOT NULL CHECK (status BETWEEN 100 AND 599),
    request_id      text        NOT NULL,
    key_id          text,
    user_id         text,
    latency_micros  bigint      NOT NULL CHECK (latency_micros >= 0),
    error_body      jsonb,
    created_at      timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

-- Newest first within a tenant's environment, the list's order and its keyset cursor.
CREATE INDEX request_logs_list_idx ON request_logs (tenant_id, environment, created_at DESC, id DESC);
-- The prune job deletes by age across tenants.
CREATE INDEX request_logs_created_idx ON request_logs (created_at);
