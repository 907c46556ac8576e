ALTER TABLE wallets DROP COLUMN custody_key_ref;
DROP TABLE custody_keys;
