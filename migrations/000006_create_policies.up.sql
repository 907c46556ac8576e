-- Spend policies (docs/api.md Policy). A policy points at its active version; versions are
-- immutable (a trigger refuses UPDATE and DELETE), so history is never rewritten.
CREATE TABLE policies (
    id                text PRIMARY KEY,
    tenant_id         text NOT NULL REFERENCES tenants (id),
    environment       text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    name              text NOT NULL,
    status            text NOT NULL CHECK (status IN ('ACTIVE', 'ARCHIVED')),
    active_version_id text NOT NULL,
    active_version    integer NOT NULL CHECK (active_version >= 1),
    created_at        timestamptz NOT NULL,
    archived_at       timestamptz,
    CHECK ((status = 'ARCHIVED') = (archived_at IS NOT NULL))
);
CREATE INDEX policies_tenant_env_idx ON policies (tenant_id, environment, id);

-- ir is the canonical serialisation, kept byte for byte (text, not jsonb, which would
-- reformat it); sha256 is over exactly those bytes. document is the submitted document.
CREATE TABLE policy_versions (
    id         text PRIMARY KEY,
    policy_id  text NOT NULL REFERENCES policies (id),
    version    integer NOT NULL CHECK (version >= 1),
    sha256     text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    ir         text NOT NULL,
    document   jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    CONSTRAINT policy_versions_policy_version_key UNIQUE (policy_id, version)
);

ALTER TABLE policies ADD CONSTRAINT policies_active_version_fkey
    FOREIGN KEY (active_version_id) REFERENCES policy_versions (id) DEFERRABLE INITIALLY DEFERRED;

CREATE FUNCTION policy_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'policy versions are immutable' USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER policy_versions_no_rewrite BEFORE UPDATE OR DELETE ON policy_versions
    FOR EACH ROW EXECUTE FUNCTION policy_versions_immutable();

-- Attachments: detached rows stay for audit; one active attachment per subject.
CREATE TABLE policy_attachments (
    id           text PRIMARY KEY,
    tenant_id    text NOT NULL REFERENCES tenants (id),
    environment  text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    policy_id    text NOT NULL REFERENCES policies (id),
    subject_type text NOT NULL CHECK (subject_type IN ('wallet', 'card', 'agent', 'treasury_account')),
    subject_id   text NOT NULL,
    attached_at  timestamptz NOT NULL,
    detached_at  timestamptz
);
CREATE UNIQUE INDEX policy_attachments_subject_active_key
    ON policy_attachments (tenant_id, environment, subject_type, subject_id) WHERE detached_at IS NULL;
CREATE INDEX policy_attachments_policy_idx ON policy_attachments (policy_id, id) WHERE detached_at IS NULL;

-- Decision logs: every evaluation (dry run or gate), pinned to the version and its sha256.
CREATE TABLE policy_decisions (
    id                text PRIMARY KEY,
    tenant_id         text NOT NULL REFERENCES tenants (id),
    environment       text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    policy_id         text NOT NULL REFERENCES policies (id),
    version_id        text NOT NULL REFERENCES policy_versions (id),
    policy_version    integer NOT NULL,
    sha256            text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    subject_type      text,
    subject_id        text,
    source            text NOT NULL CHECK (source IN ('EVALUATE', 'PAYMENT')),
    reference_id      text,
    mode              text CHECK (mode IN ('off', 'log', 'enforce')),
    amount_base_units bigint NOT NULL,
    mcc               text,
    counterparty      text,
    allow             boolean NOT NULL,
    reason            text NOT NULL,
    rule_trace        jsonb NOT NULL,
    blocked           boolean NOT NULL,
    created_at        timestamptz NOT NULL
);
CREATE INDEX policy_decisions_tenant_env_idx ON policy_decisions (tenant_id, environment, id);
CREATE INDEX policy_decisions_reference_idx ON policy_decisions (reference_id) WHERE reference_id IS NOT NULL;
