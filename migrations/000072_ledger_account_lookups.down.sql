DELETE FROM tenant_lookups WHERE kind = 'ledger_account';
