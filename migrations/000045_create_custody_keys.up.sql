-- Custody keys of the keystore signer (docs/decisions/wallets.md): a secp256k1 private key sealed by the service
-- cipher (AES-GCM with a key id, so CIPHER_KEY rotation reads old rows), bound to its ref.
-- PKCS#11 keys live in the HSM and have no row here. A custodial wallet names its key.
CREATE TABLE custody_keys (
    ref text PRIMARY KEY,
    address text NOT NULL UNIQUE CHECK (address ~ '^0x[0-9a-fA-F]{40}$'),
    sealed_key bytea NOT NULL,
    created_at timestamptz NOT NULL
);

ALTER TABLE wallets ADD COLUMN custody_key_ref text;
