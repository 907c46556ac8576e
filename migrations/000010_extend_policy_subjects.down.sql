-- Going back removes what the narrower checks cannot hold: service-balance attachments and the
-- off-ramp composer's decision logs.
DELETE FROM policy_attachments WHERE subject_type = 'service_balance';
DELETE FROM policy_decisions WHERE source = 'OFFRAMP';

ALTER TABLE policy_attachments DROP CONSTRAINT policy_attachments_subject_type_check;
ALTER TABLE policy_attachments ADD CONSTRAINT policy_attachments_subject_type_check
    CHECK (subject_type IN ('wallet', 'card', 'agent', 'treasury_account'));

ALTER TABLE policy_decisions DROP CONSTRAINT policy_decisions_source_check;
ALTER TABLE policy_decisions ADD CONSTRAINT policy_decisions_source_check
    CHECK (source IN ('EVALUATE', 'PAYMENT'));
