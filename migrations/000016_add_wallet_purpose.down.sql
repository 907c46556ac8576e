ALTER TABLE wallets DROP COLUMN purpose;
