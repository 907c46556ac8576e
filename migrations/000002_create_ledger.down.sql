DROP TABLE IF EXISTS ledger_chain;
DROP TABLE IF EXISTS ledger_postings;
DROP TABLE IF EXISTS ledger_transfers;
DROP FUNCTION IF EXISTS ledger_link_transfer();
DROP TABLE IF EXISTS ledger_chain_heads;
DROP TABLE IF EXISTS ledger_balances;
DROP TABLE IF EXISTS ledger_accounts;
