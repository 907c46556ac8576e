-- Policies, their versions, attachments and decision logs key by the tenant, so that on Citus
-- they are distributed by tenant beside its cards and payments (docs/scaling.md): a gate's
-- reads (the subject's attachment, the policy, its active version) and its decision log go to
-- the tenant's shard group. policy_versions gains the tenant of its policy. The keys between
-- the tables carry the tenant.
ALTER TABLE policies DROP CONSTRAINT policies_active_version_fkey;
ALTER TABLE policy_versions DROP CONSTRAINT policy_versions_policy_id_fkey;
ALTER TABLE policy_attachments DROP CONSTRAINT policy_attachments_policy_id_fkey;
ALTER TABLE policy_decisions DROP CONSTRAINT policy_decisions_policy_id_fkey;
ALTER TABLE policy_decisions DROP CONSTRAINT policy_decisions_version_id_fkey;

ALTER TABLE policy_versions ADD COLUMN tenant_id text;
-- The backfill is the one rewrite the immutability trigger must let through.
ALTER TABLE policy_versions DISABLE TRIGGER policy_versions_no_rewrite;
UPDATE policy_versions v SET tenant_id = p.tenant_id FROM policies p WHERE p.id = v.policy_id;
ALTER TABLE policy_versions ENABLE TRIGGER policy_versions_no_rewrite;
ALTER TABLE policy_versions ALTER COLUMN tenant_id SET NOT NULL;

ALTER TABLE policies DROP CONSTRAINT policies_pkey;
ALTER TABLE policies ADD CONSTRAINT policies_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE policy_versions DROP CONSTRAINT policy_versions_pkey;
ALTER TABLE policy_versions ADD CONSTRAINT policy_versions_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE policy_versions DROP CONSTRAINT policy_versions_policy_version_key;
ALTER TABLE policy_versions ADD CONSTRAINT policy_versions_policy_version_key UNIQUE (tenant_id, policy_id, version);
ALTER TABLE policy_attachments DROP CONSTRAINT policy_attachments_pkey;
ALTER TABLE policy_attachments ADD CONSTRAINT policy_attachments_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE policy_decisions DROP CONSTRAINT policy_decisions_pkey;
ALTER TABLE policy_decisions ADD CONSTRAINT policy_decisions_pkey PRIMARY KEY (tenant_id, id);

DROP INDEX policy_attachments_policy_idx;
CREATE INDEX policy_attachments_policy_idx ON policy_attachments (tenant_id, policy_id, id) WHERE detached_at IS NULL;
DROP INDEX policy_decisions_reference_idx;
CREATE INDEX policy_decisions_reference_idx ON policy_decisions (tenant_id, reference_id) WHERE reference_id IS NOT NULL;

ALTER TABLE policies ADD CONSTRAINT policies_active_version_fkey
    FOREIGN KEY (tenant_id, active_version_id) REFERENCES policy_versions (tenant_id, id) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE policy_versions ADD CONSTRAINT policy_versions_policy_id_fkey
    FOREIGN KEY (tenant_id, policy_id) REFERENCES policies (tenant_id, id);
ALTER TABLE policy_attachments ADD CONSTRAINT policy_attachments_policy_id_fkey
    FOREIGN KEY (tenant_id, policy_id) REFERENCES policies (tenant_id, id);
ALTER TABLE policy_decisions ADD CONSTRAINT policy_decisions_policy_id_fkey
    FOREIGN KEY (tenant_id, policy_id) REFERENCES policies (tenant_id, id);
ALTER TABLE policy_decisions ADD CONSTRAINT policy_decisions_version_id_fkey
    FOREIGN KEY (tenant_id, version_id) REFERENCES policy_versions (tenant_id, id);
