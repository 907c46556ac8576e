ALTER TABLE ledger_postings DROP COLUMN transfer_home_tenant_id;
