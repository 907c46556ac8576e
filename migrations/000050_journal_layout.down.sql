-- Back to 000049's journal: the postings' primary key, account index and foreign keys, built
-- again from the same rows (which still hold every leg), and no posting arrays on transfers.
ALTER TABLE ledger_postings DROP CONSTRAINT ledger_postings_pkey;
ALTER TABLE ledger_postings ADD CONSTRAINT ledger_postings_pkey PRIMARY KEY (transfer_id, account_id);
CREATE INDEX ledger_postings_account_idx ON ledger_postings (account_id, created_at, sequence);
ALTER TABLE ledger_postings
    ADD CONSTRAINT ledger_postings_transfer_id_fkey FOREIGN KEY (transfer_id) REFERENCES ledger_transfers (id),
    ADD CONSTRAINT ledger_postings_account_id_fkey FOREIGN KEY (account_id) REFERENCES ledger_accounts (id);

ALTER TABLE ledger_transfers
    DROP CONSTRAINT ledger_transfers_postings_check,
    DROP COLUMN posting_accounts,
    DROP COLUMN posting_amounts;
