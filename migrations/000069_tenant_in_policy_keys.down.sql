ALTER TABLE policies DROP CONSTRAINT policies_active_version_fkey;
ALTER TABLE policy_versions DROP CONSTRAINT policy_versions_policy_id_fkey;
ALTER TABLE policy_attachments DROP CONSTRAINT policy_attachments_policy_id_fkey;
ALTER TABLE policy_decisions DROP CONSTRAINT policy_decisions_policy_id_fkey;
ALTER TABLE policy_decisions DROP CONSTRAINT policy_decisions_version_id_fkey;

DROP INDEX policy_decisions_reference_idx;
CREATE INDEX policy_decisions_reference_idx ON policy_decisions (reference_id) WHERE reference_id IS NOT NULL;
DROP INDEX policy_attachments_policy_idx;
CREATE INDEX policy_attachments_policy_idx ON policy_attachments (policy_id, id) WHERE detached_at IS NULL;

ALTER TABLE policy_decisions DROP CONSTRAINT policy_decisions_pkey;
ALTER TABLE policy_decisions ADD CONSTRAINT policy_decisions_pkey PRIMARY KEY (id);
ALTER TABLE policy_attachments DROP CONSTRAINT policy_attachments_pkey;
ALTER TABLE policy_attachments ADD CONSTRAINT policy_attachments_pkey PRIMARY KEY (id);
ALTER TABLE policy_versions DROP CONSTRAINT policy_versions_policy_version_key;
ALTER TABLE policy_versions ADD CONSTRAINT policy_versions_policy_version_key UNIQUE (policy_id, version);
ALTER TABLE policy_versions DROP CONSTRAINT policy_versions_pkey;
ALTER TABLE policy_versions ADD CONSTRAINT policy_versions_pkey PRIMARY KEY (id);
ALTER TABLE policies DROP CONSTRAINT policies_pkey;
ALTER TABLE policies ADD CONSTRAINT policies_pkey PRIMARY KEY (id);
ALTER TABLE policy_versions DROP COLUMN tenant_id;

ALTER TABLE policies ADD CONSTRAINT policies_active_version_fkey
    FOREIGN KEY (active_version_id) REFERENCES policy_versions (id) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE policy_versions ADD CONSTRAINT policy_versions_policy_id_fkey FOREIGN KEY (policy_id) REFERENCES policies (id);
ALTER TABLE policy_attachments ADD CONSTRAINT policy_attachments_policy_id_fkey FOREIGN KEY (policy_id) REFERENCES policies (id);
ALTER TABLE policy_decisions ADD CONSTRAINT policy_decisions_policy_id_fkey FOREIGN KEY (policy_id) REFERENCES policies (id);
ALTER TABLE policy_decisions ADD CONSTRAINT policy_decisions_version_id_fkey FOREIGN KEY (version_id) REFERENCES policy_versions (id);
