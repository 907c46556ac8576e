DROP TABLE policy_decisions;
DROP TABLE policy_attachments;
ALTER TABLE policies DROP CONSTRAINT policies_active_version_fkey;
DROP TABLE policy_versions;
DROP FUNCTION policy_versions_immutable();
DROP TABLE policies;
