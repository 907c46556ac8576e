-- The ledger's keys carry the home tenant (migration 000065), so that a database distributed by
-- tenant can hold each row in its home's shard group: Citus requires the distribution column in
-- every primary key and unique constraint, and in both sides of a foreign key between
-- distributed tables (docs/scaling.md, "The ledger's keys").
--
-- The home comes last in every key: an account's or a transfer's id is unique by construction
-- (UUIDv7) and the home is a function of the row (an account's tenant or share, a transfer's
-- ledger.HomeOf), so on plain PostgreSQL the keys enforce what they enforced before, and the
-- lookups by id or reference alone (an account by id, a transfer by reference) keep a leading
-- index column.
--
-- Balances and postings learn the home of their account, copied in from ledger_accounts.
--
-- The references stay unique across homes here (ledger_accounts_reference_key,
-- ledger_transfers_reference_key): a reference reused for another tenant's money is refused as
-- before. Citus cannot enforce a key without the distribution column, so distributing the
-- ledger replaces them with the same keys per home, and `corridor check`
-- (ledger-keys-across-homes) checks the rest; the store's inserts name no conflict target, so
-- they work under either key.

ALTER TABLE ledger_balances DROP CONSTRAINT ledger_balances_account_id_fkey;
ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_pending_id_fkey;
ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_resolved_by_fkey;
-- A reversal's home is its own debited side's, which for money between two tenants is not the
-- reversed transfer's, and the reversed transfer's resolved_by names the reversal: Citus cannot
-- keep those keys, so `corridor check` (ledger-keys-across-homes) checks that every reversed_id
-- and resolved_by names a transfer instead.
ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_reversed_id_fkey;

ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_pkey,
    ADD CONSTRAINT ledger_accounts_pkey PRIMARY KEY (id, home_tenant_id);

ALTER TABLE ledger_balances ADD COLUMN home_tenant_id text;
UPDATE ledger_balances b SET home_tenant_id = a.home_tenant_id FROM ledger_accounts a WHERE a.id = b.account_id;
ALTER TABLE ledger_balances ALTER COLUMN home_tenant_id SET NOT NULL,
    DROP CONSTRAINT ledger_balances_pkey,
    ADD CONSTRAINT ledger_balances_pkey PRIMARY KEY (account_id, home_tenant_id),
    ADD CONSTRAINT ledger_balances_account_fkey FOREIGN KEY (account_id, home_tenant_id)
        REFERENCES ledger_accounts (id, home_tenant_id);

ALTER TABLE ledger_postings ADD COLUMN home_tenant_id text;
UPDATE ledger_postings p SET home_tenant_id = a.home_tenant_id FROM ledger_accounts a WHERE a.id = p.account_id;
ALTER TABLE ledger_postings ALTER COLUMN home_tenant_id SET NOT NULL,
    DROP CONSTRAINT ledger_postings_pkey,
    ADD CONSTRAINT ledger_postings_pkey PRIMARY KEY (account_id, created_at, sequence, home_tenant_id);

ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_pkey,
    ADD CONSTRAINT ledger_transfers_pkey PRIMARY KEY (id, home_tenant_id);
ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_sequence_key,
    ADD CONSTRAINT ledger_transfers_sequence_key UNIQUE (sequence, home_tenant_id);
-- A post or void of a pending transfer books the pending transfer's accounts with the same
-- signs, so it has the same home: this key stays, with the home in it.
ALTER TABLE ledger_transfers
    ADD CONSTRAINT ledger_transfers_pending_fkey FOREIGN KEY (pending_id, home_tenant_id)
        REFERENCES ledger_transfers (id, home_tenant_id);
