DROP TABLE ledger_home_split;
