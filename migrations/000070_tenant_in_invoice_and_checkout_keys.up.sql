-- Invoices, bills, checkouts and checkout refunds key by their tenant, so that on Citus they
-- are distributed by tenant beside the rest of its rows (docs/scaling.md). A bill is keyed by
-- its PAYER's tenant: after the sender's one insert, every read, lock and update of a bill is
-- the payer's (its inbound view and acceptance). The keys between checkouts and their refunds
-- carry the tenant (Citus enforces a key between distributed tables only on that column).
ALTER TABLE checkout_refunds DROP CONSTRAINT checkout_refunds_checkout_id_fkey;
ALTER TABLE checkouts DROP CONSTRAINT checkouts_pkey;
ALTER TABLE checkouts ADD CONSTRAINT checkouts_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE checkout_refunds DROP CONSTRAINT checkout_refunds_pkey;
ALTER TABLE checkout_refunds ADD CONSTRAINT checkout_refunds_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE checkout_refunds ADD CONSTRAINT checkout_refunds_checkout_id_fkey
    FOREIGN KEY (tenant_id, checkout_id) REFERENCES checkouts (tenant_id, id);
DROP INDEX checkout_refunds_checkout;
CREATE INDEX checkout_refunds_checkout ON checkout_refunds (tenant_id, checkout_id, id);
ALTER TABLE checkouts DROP CONSTRAINT checkouts_deposit_address_key;
ALTER TABLE checkouts ADD CONSTRAINT checkouts_deposit_address_key UNIQUE (tenant_id, deposit_address);

ALTER TABLE invoices DROP CONSTRAINT invoices_pkey;
ALTER TABLE invoices ADD CONSTRAINT invoices_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE invoices DROP CONSTRAINT invoices_hold_wallet_id_key;
ALTER TABLE invoices ADD CONSTRAINT invoices_hold_wallet_id_key UNIQUE (tenant_id, hold_wallet_id);

ALTER TABLE bills DROP CONSTRAINT bills_pkey;
ALTER TABLE bills ADD CONSTRAINT bills_pkey PRIMARY KEY (payer_tenant_id, id);
-- A signer's nonce is single-use across every payer: the uniqueness moves to tenant_lookups
-- (a 'bill_nonce' row per VERIFIED bill, keyed by environment, signer and nonce).
DROP INDEX bills_signer_nonce_key;

-- The lookups these families make before the tenant is known: the public invoice and
-- checkout pages by id, and a checkout's deposit address (unique across tenants, as the
-- address's own uniqueness constraint was). The kinds are checked by shape rather than listed,
-- so that each family adding a kind needs no migration of the others'.
ALTER TABLE tenant_lookups DROP CONSTRAINT tenant_lookups_kind_check;
ALTER TABLE tenant_lookups ADD CONSTRAINT tenant_lookups_kind_check CHECK (kind ~ '^[a-z][a-z_]*$');

INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT id, 'invoice', tenant_id, created_at FROM invoices;
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT id, 'checkout', tenant_id, created_at FROM checkouts;
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT deposit_address, 'checkout_deposit', tenant_id, created_at FROM checkouts;
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT environment || ':' || lower(sender_address) || ':' || sig_nonce, 'bill_nonce', sender_tenant_id, created_at
FROM bills WHERE verification_status = 'VERIFIED';
