DELETE FROM tenant_lookups WHERE kind IN ('invoice', 'checkout', 'checkout_deposit', 'bill_nonce');
ALTER TABLE tenant_lookups DROP CONSTRAINT tenant_lookups_kind_check;
ALTER TABLE tenant_lookups ADD CONSTRAINT tenant_lookups_kind_check CHECK (kind IN ('api_key', 'invite', 'member_user'));

CREATE UNIQUE INDEX bills_signer_nonce_key ON bills (environment, lower(sender_address), sig_nonce)
    WHERE verification_status = 'VERIFIED';
ALTER TABLE bills DROP CONSTRAINT bills_pkey;
ALTER TABLE bills ADD CONSTRAINT bills_pkey PRIMARY KEY (id);

ALTER TABLE invoices DROP CONSTRAINT invoices_hold_wallet_id_key;
ALTER TABLE invoices ADD CONSTRAINT invoices_hold_wallet_id_key UNIQUE (hold_wallet_id);
ALTER TABLE invoices DROP CONSTRAINT invoices_pkey;
ALTER TABLE invoices ADD CONSTRAINT invoices_pkey PRIMARY KEY (id);

ALTER TABLE checkouts DROP CONSTRAINT checkouts_deposit_address_key;
ALTER TABLE checkouts ADD CONSTRAINT checkouts_deposit_address_key UNIQUE (deposit_address);
DROP INDEX checkout_refunds_checkout;
CREATE INDEX checkout_refunds_checkout ON checkout_refunds (checkout_id, id);
ALTER TABLE checkout_refunds DROP CONSTRAINT checkout_refunds_checkout_id_fkey;
ALTER TABLE checkout_refunds DROP CONSTRAINT checkout_refunds_pkey;
ALTER TABLE checkout_refunds ADD CONSTRAINT checkout_refunds_pkey PRIMARY KEY (id);
ALTER TABLE checkouts DROP CONSTRAINT checkouts_pkey;
ALTER TABLE checkouts ADD CONSTRAINT checkouts_pkey PRIMARY KEY (id);
ALTER TABLE checkout_refunds ADD CONSTRAINT checkout_refunds_checkout_id_fkey
    FOREIGN KEY (checkout_id) REFERENCES checkouts (id);
