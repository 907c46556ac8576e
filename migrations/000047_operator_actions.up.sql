-- The operator audit trail (#33): every operator action, done or refused, from the console or
-- the admin API. Rows are only ever inserted.
CREATE TABLE operator_actions (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at timestamptz NOT NULL,
    operator text NOT NULL,
    action text NOT NULL CHECK (action IN ('approve-review', 'arbiter-sign', 'redeliver', 'retry-job')),
    object_id text NOT NULL,
    tenant_id text,
    environment text CHECK (environment IN ('TEST', 'LIVE')),
    outcome text NOT NULL CHECK (outcome IN ('done', 'refused')),
    detail text NOT NULL DEFAULT '',
    via text NOT NULL CHECK (via IN ('console', 'api'))
);

CREATE INDEX operator_actions_at_idx ON operator_actions (at DESC, id DESC);
