DROP TABLE ledger_account_homes;
