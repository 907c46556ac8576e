-- The journal layout of issue #34 (docs/performance.md, "A journal layout with fewer index
-- entries and checks"). A transfer carries its postings as two arrays in account-id order, the
-- order the ledger's canonical form sorts them in, so reading a transfer reads one row.
-- ledger_postings becomes the account history: one row per leg with its balance change and
-- balance after, keyed by the order every per-account read already uses, with no foreign key
-- and no second index. What the dropped constraints guarded is guarded by the batch's locking
-- read and by `corridor ledger verify` (docs/performance.md lists each guard).
ALTER TABLE ledger_transfers ADD COLUMN posting_accounts text[], ADD COLUMN posting_amounts bigint[];

-- No trigger forbids updating a transfer (a hold's status changes): the link trigger fires on
-- INSERT only. COLLATE "C" sorts as Go's sort.Strings does, which is the writers' order.
UPDATE ledger_transfers t SET posting_accounts = p.accounts, posting_amounts = p.amounts
FROM (
    SELECT transfer_id, array_agg(account_id ORDER BY account_id COLLATE "C") AS accounts,
        array_agg(amount ORDER BY account_id COLLATE "C") AS amounts
    FROM ledger_postings GROUP BY transfer_id
) p
WHERE p.transfer_id = t.id;

-- A transfer without postings cannot be migrated: NOT NULL refuses it (the ledger was broken).
-- Every transfer type has 2..ledger.MaxPostings legs, none of them zero.
ALTER TABLE ledger_transfers
    ALTER COLUMN posting_accounts SET NOT NULL,
    ALTER COLUMN posting_amounts SET NOT NULL,
    ADD CONSTRAINT ledger_transfers_postings_check CHECK (
        array_ndims(posting_accounts) = 1 AND array_ndims(posting_amounts) = 1
        AND cardinality(posting_accounts) >= 2
        AND cardinality(posting_accounts) = cardinality(posting_amounts)
        AND array_position(posting_accounts, NULL) IS NULL
        AND array_position(posting_amounts, NULL) IS NULL
        AND 0 <> ALL (posting_amounts));

-- (account_id, created_at, sequence) serves statements, balances as of, entries, daily volume
-- and wallet activity in the order they read, and still allows one leg per account per
-- transfer (a transfer has one created_at and one sequence).
ALTER TABLE ledger_postings
    DROP CONSTRAINT ledger_postings_account_id_fkey,
    DROP CONSTRAINT ledger_postings_transfer_id_fkey,
    DROP CONSTRAINT ledger_postings_pkey;
DROP INDEX ledger_postings_account_idx;
ALTER TABLE ledger_postings ADD CONSTRAINT ledger_postings_pkey PRIMARY KEY (account_id, created_at, sequence);
