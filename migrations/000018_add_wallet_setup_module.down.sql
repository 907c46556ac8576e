ALTER TABLE wallets DROP COLUMN setup_module;
