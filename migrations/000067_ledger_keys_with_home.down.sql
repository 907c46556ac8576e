ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_pending_fkey;
ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_sequence_key,
    ADD CONSTRAINT ledger_transfers_sequence_key UNIQUE (sequence);
ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_pkey,
    ADD CONSTRAINT ledger_transfers_pkey PRIMARY KEY (id);
ALTER TABLE ledger_postings DROP CONSTRAINT ledger_postings_pkey,
    ADD CONSTRAINT ledger_postings_pkey PRIMARY KEY (account_id, created_at, sequence),
    DROP COLUMN home_tenant_id;
ALTER TABLE ledger_balances DROP CONSTRAINT ledger_balances_account_fkey,
    DROP CONSTRAINT ledger_balances_pkey,
    ADD CONSTRAINT ledger_balances_pkey PRIMARY KEY (account_id),
    DROP COLUMN home_tenant_id;
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_pkey,
    ADD CONSTRAINT ledger_accounts_pkey PRIMARY KEY (id);
ALTER TABLE ledger_balances ADD CONSTRAINT ledger_balances_account_id_fkey FOREIGN KEY (account_id) REFERENCES ledger_accounts (id);
ALTER TABLE ledger_transfers
    ADD CONSTRAINT ledger_transfers_pending_id_fkey FOREIGN KEY (pending_id) REFERENCES ledger_transfers (id),
    ADD CONSTRAINT ledger_transfers_resolved_by_fkey FOREIGN KEY (resolved_by) REFERENCES ledger_transfers (id),
    ADD CONSTRAINT ledger_transfers_reversed_id_fkey FOREIGN KEY (reversed_id) REFERENCES ledger_transfers (id);
