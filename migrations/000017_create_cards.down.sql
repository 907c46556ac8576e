ALTER TABLE policy_decisions DROP CONSTRAINT policy_decisions_source_check;
ALTER TABLE policy_decisions ADD CONSTRAINT policy_decisions_source_check
    CHECK (source IN ('EVALUATE', 'PAYMENT', 'OFFRAMP'));
DROP TABLE card_spend_windows;
DROP TABLE card_authorizations;
DROP TABLE cards;
DROP TABLE cardholders;
