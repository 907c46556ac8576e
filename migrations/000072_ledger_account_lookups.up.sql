-- A ledger account's id does not tell its home (home_tenant_id, the ledger's distribution
-- column): readers given only an id (the account cache, Balances) find the home through a lookup
-- row keyed by the id, as the API key's public id is found. The store writes the row with the
-- account; this backfills the accounts opened before.
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id)
SELECT a.id, 'ledger_account', a.home_tenant_id FROM ledger_accounts a
ON CONFLICT DO NOTHING;
