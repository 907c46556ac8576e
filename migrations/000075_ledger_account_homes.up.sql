-- A ledger account's id does not tell its home (home_tenant_id, the ledger's distribution
-- column): readers given only an id (the account cache's fill, Balances, a statement) find the
-- home here first. The store writes the row with the account; this backfills the accounts
-- opened before. It lives with the ledger's tables (on Citus, on the coordinator while they
-- do), so recording an account's home adds no node to its unit of work; once the ledger is
-- distributed it becomes a lookup table distributed by account_id.
CREATE TABLE ledger_account_homes (
    account_id text PRIMARY KEY,
    home_tenant_id text NOT NULL
);

INSERT INTO ledger_account_homes (account_id, home_tenant_id)
SELECT a.id, a.home_tenant_id FROM ledger_accounts a;
