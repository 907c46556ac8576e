-- Off-ramp spend policies (docs/decisions/README.md, "Off-ramp spend policies"): a tenant's service
-- balance becomes a policy subject (subject id = the tenant's id), and the off-ramp composer
-- records its decisions with source OFFRAMP.
ALTER TABLE policy_attachments DROP CONSTRAINT policy_attachments_subject_type_check;
ALTER TABLE policy_attachments ADD CONSTRAINT policy_attachments_subject_type_check
    CHECK (subject_type IN ('wallet', 'card', 'agent', 'treasury_account', 'service_balance'));

ALTER TABLE policy_decisions DROP CONSTRAINT policy_decisions_source_check;
ALTER TABLE policy_decisions ADD CONSTRAINT policy_decisions_source_check
    CHECK (source IN ('EVALUATE', 'PAYMENT', 'OFFRAMP'));
