-- Wallets with what references them (handles, drips, ramps, Safe payments) and the treasury
-- key by their tenant, so that on Citus they are distributed by tenant beside the rest of its
-- rows (docs/scaling.md). Every key between them carries the tenant, as do the keys to them
-- from cards, invoices and bills (Citus enforces a key between distributed tables only when
-- it includes the distribution column). Agents and their card spend are keyed already.
ALTER TABLE handles DROP CONSTRAINT handles_wallet_id_fkey;
ALTER TABLE drips DROP CONSTRAINT drips_wallet_id_fkey;
ALTER TABLE ramps DROP CONSTRAINT ramps_wallet_id_fkey;
ALTER TABLE ramps DROP CONSTRAINT ramps_drip_id_fkey;
ALTER TABLE ramps DROP CONSTRAINT ramps_payment_id_fkey;
ALTER TABLE safe_payments DROP CONSTRAINT safe_payments_source_wallet_id_fkey;
-- On a Citus database distributed before this migration, cards, invoices and bills lost these
-- keys when they moved (a distributed table keeps no key to a coordinator-local one).
ALTER TABLE cards DROP CONSTRAINT IF EXISTS cards_wallet_id_fkey;
ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_hold_wallet_id_fkey;
ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_refund_payment_id_fkey;
ALTER TABLE invoices DROP CONSTRAINT IF EXISTS invoices_release_payment_id_fkey;
ALTER TABLE bills DROP CONSTRAINT IF EXISTS bills_payer_payment_id_fkey;
ALTER TABLE treasury_buckets DROP CONSTRAINT treasury_buckets_wallet_id_fkey;
ALTER TABLE treasury_buckets DROP CONSTRAINT treasury_buckets_account_id_fkey;
ALTER TABLE treasury_rules DROP CONSTRAINT treasury_rules_account_id_fkey;
ALTER TABLE treasury_rules DROP CONSTRAINT treasury_rules_source_bucket_id_fkey;
ALTER TABLE treasury_rules DROP CONSTRAINT treasury_rules_dest_bucket_id_fkey;
ALTER TABLE treasury_sweeps DROP CONSTRAINT treasury_sweeps_account_id_fkey;
ALTER TABLE treasury_sweeps DROP CONSTRAINT treasury_sweeps_source_bucket_id_fkey;
ALTER TABLE treasury_sweeps DROP CONSTRAINT treasury_sweeps_dest_bucket_id_fkey;
ALTER TABLE treasury_sweeps DROP CONSTRAINT treasury_sweeps_rule_id_fkey;
ALTER TABLE treasury_sweeps DROP CONSTRAINT treasury_sweeps_payment_id_fkey;

-- A wallet's chain address stays one tenant's across all tenants: that uniqueness moves to a
-- tenant_lookups row (kind 'wallet_address', keyed by environment and lower-cased address),
-- which also answers whose wallet an address is before the tenant is known (a bill's payer).
ALTER TABLE wallets DROP CONSTRAINT wallets_pkey;
ALTER TABLE wallets ADD CONSTRAINT wallets_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE wallets DROP CONSTRAINT wallets_chain_address_key;
ALTER TABLE wallets ADD CONSTRAINT wallets_chain_address_key UNIQUE (tenant_id, chain_id, address);
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT DISTINCT ON (environment || ':' || lower(address)) environment || ':' || lower(address), 'wallet_address', tenant_id, created_at
FROM wallets ORDER BY environment || ':' || lower(address), created_at, id;

-- A handle stays global per environment (another tenant's wallet is a destination by handle):
-- its owner is found through a tenant_lookups row (kind 'handle', keyed by environment and name).
ALTER TABLE handles DROP CONSTRAINT handles_pkey;
ALTER TABLE handles ADD CONSTRAINT handles_pkey PRIMARY KEY (tenant_id, environment, handle);
DROP INDEX handles_wallet_idx;
CREATE INDEX handles_wallet_idx ON handles (tenant_id, wallet_id);
ALTER TABLE handles ADD CONSTRAINT handles_wallet_id_fkey FOREIGN KEY (tenant_id, wallet_id) REFERENCES wallets (tenant_id, id);
INSERT INTO tenant_lookups (lookup_key, kind, tenant_id, created_at)
SELECT environment || ':' || handle, 'handle', tenant_id, created_at FROM handles;

ALTER TABLE drips DROP CONSTRAINT drips_pkey;
ALTER TABLE drips ADD CONSTRAINT drips_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE drips DROP CONSTRAINT drips_chain_tx_hash_key;
ALTER TABLE drips ADD CONSTRAINT drips_chain_tx_hash_key UNIQUE (tenant_id, chain_id, tx_hash);
DROP INDEX drips_wallet_created_idx;
CREATE INDEX drips_wallet_created_idx ON drips (tenant_id, wallet_id, created_at);
ALTER TABLE drips ADD CONSTRAINT drips_wallet_id_fkey FOREIGN KEY (tenant_id, wallet_id) REFERENCES wallets (tenant_id, id);

ALTER TABLE safe_payments DROP CONSTRAINT safe_payments_pkey;
ALTER TABLE safe_payments ADD CONSTRAINT safe_payments_pkey PRIMARY KEY (tenant_id, id);
DROP INDEX safe_payments_source_created_idx;
CREATE INDEX safe_payments_source_created_idx ON safe_payments (tenant_id, source_wallet_id, created_at DESC, id DESC);
DROP INDEX safe_payments_wallet_pending_idx;
CREATE INDEX safe_payments_wallet_pending_idx ON safe_payments (tenant_id, source_wallet_id, safe_nonce)
    WHERE status IN ('CREATED', 'AWAITING_SIGNATURE', 'SIGNING', 'READY_TO_EXECUTE', 'EXECUTING');
ALTER TABLE safe_payments ADD CONSTRAINT safe_payments_source_wallet_id_fkey
    FOREIGN KEY (tenant_id, source_wallet_id) REFERENCES wallets (tenant_id, id);

ALTER TABLE ramps DROP CONSTRAINT ramps_pkey;
ALTER TABLE ramps ADD CONSTRAINT ramps_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE ramps DROP CONSTRAINT ramps_drip_id_key;
ALTER TABLE ramps ADD CONSTRAINT ramps_drip_id_key UNIQUE (tenant_id, drip_id);
ALTER TABLE ramps DROP CONSTRAINT ramps_payment_id_key;
ALTER TABLE ramps ADD CONSTRAINT ramps_payment_id_key UNIQUE (tenant_id, payment_id);
DROP INDEX ramps_wallet_idx;
CREATE INDEX ramps_wallet_idx ON ramps (tenant_id, wallet_id, id);
ALTER TABLE ramps ADD CONSTRAINT ramps_wallet_id_fkey FOREIGN KEY (tenant_id, wallet_id) REFERENCES wallets (tenant_id, id);
ALTER TABLE ramps ADD CONSTRAINT ramps_drip_id_fkey FOREIGN KEY (tenant_id, drip_id) REFERENCES drips (tenant_id, id);
ALTER TABLE ramps ADD CONSTRAINT ramps_payment_id_fkey FOREIGN KEY (tenant_id, payment_id) REFERENCES safe_payments (tenant_id, id);

-- The keys to wallets and Safe payments from cards, invoices and bills (a bill is its payer's,
-- and so is the payment that pays it), each added unless its table is distributed already (an
-- upgraded Citus database, where wallets are still local until `corridor migrate` distributes).
DO $$
DECLARE
    k record;
    placed boolean;
BEGIN
    FOR k IN SELECT * FROM (VALUES
        ('cards', 'cards_wallet_id_fkey', 'FOREIGN KEY (tenant_id, wallet_id) REFERENCES wallets (tenant_id, id)'),
        ('invoices', 'invoices_hold_wallet_id_fkey', 'FOREIGN KEY (tenant_id, hold_wallet_id) REFERENCES wallets (tenant_id, id)'),
        ('invoices', 'invoices_refund_payment_id_fkey',
            'FOREIGN KEY (tenant_id, refund_payment_id) REFERENCES safe_payments (tenant_id, id)'),
        ('invoices', 'invoices_release_payment_id_fkey',
            'FOREIGN KEY (tenant_id, release_payment_id) REFERENCES safe_payments (tenant_id, id)'),
        ('bills', 'bills_payer_payment_id_fkey',
            'FOREIGN KEY (payer_tenant_id, payer_payment_id) REFERENCES safe_payments (tenant_id, id)')
    ) AS v (tbl, name, def) LOOP
        placed := false;
        IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
            EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = $1::regclass)' INTO placed USING k.tbl;
        END IF;
        IF NOT placed THEN
            EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I %s', k.tbl, k.name, k.def);
        END IF;
    END LOOP;
END $$;

-- The treasury: a bucket takes its account's tenant.
ALTER TABLE treasury_accounts DROP CONSTRAINT treasury_accounts_pkey;
ALTER TABLE treasury_accounts ADD CONSTRAINT treasury_accounts_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE treasury_buckets ADD COLUMN tenant_id text;
UPDATE treasury_buckets b SET tenant_id = a.tenant_id FROM treasury_accounts a WHERE a.id = b.account_id;
ALTER TABLE treasury_buckets ALTER COLUMN tenant_id SET NOT NULL;
ALTER TABLE treasury_buckets ADD CONSTRAINT treasury_buckets_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants (id);
ALTER TABLE treasury_buckets DROP CONSTRAINT treasury_buckets_pkey;
ALTER TABLE treasury_buckets ADD CONSTRAINT treasury_buckets_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE treasury_buckets DROP CONSTRAINT treasury_buckets_account_id_position_key;
ALTER TABLE treasury_buckets ADD CONSTRAINT treasury_buckets_account_id_position_key UNIQUE (tenant_id, account_id, position);
ALTER TABLE treasury_buckets DROP CONSTRAINT treasury_buckets_wallet_id_key;
DROP INDEX treasury_buckets_wallet;
ALTER TABLE treasury_buckets ADD CONSTRAINT treasury_buckets_wallet_id_key UNIQUE (tenant_id, wallet_id);
ALTER TABLE treasury_buckets ADD CONSTRAINT treasury_buckets_account_id_fkey
    FOREIGN KEY (tenant_id, account_id) REFERENCES treasury_accounts (tenant_id, id);
ALTER TABLE treasury_buckets ADD CONSTRAINT treasury_buckets_wallet_id_fkey
    FOREIGN KEY (tenant_id, wallet_id) REFERENCES wallets (tenant_id, id);

ALTER TABLE treasury_rules DROP CONSTRAINT treasury_rules_pkey;
ALTER TABLE treasury_rules ADD CONSTRAINT treasury_rules_pkey PRIMARY KEY (tenant_id, id);
DROP INDEX treasury_rules_account_idx;
CREATE INDEX treasury_rules_account_idx ON treasury_rules (tenant_id, account_id, id) WHERE deleted_at IS NULL;
ALTER TABLE treasury_rules ADD CONSTRAINT treasury_rules_account_id_fkey
    FOREIGN KEY (tenant_id, account_id) REFERENCES treasury_accounts (tenant_id, id);
ALTER TABLE treasury_rules ADD CONSTRAINT treasury_rules_source_bucket_id_fkey
    FOREIGN KEY (tenant_id, source_bucket_id) REFERENCES treasury_buckets (tenant_id, id);
ALTER TABLE treasury_rules ADD CONSTRAINT treasury_rules_dest_bucket_id_fkey
    FOREIGN KEY (tenant_id, dest_bucket_id) REFERENCES treasury_buckets (tenant_id, id);

ALTER TABLE treasury_sweeps DROP CONSTRAINT treasury_sweeps_pkey;
ALTER TABLE treasury_sweeps ADD CONSTRAINT treasury_sweeps_pkey PRIMARY KEY (tenant_id, id);
ALTER TABLE treasury_sweeps DROP CONSTRAINT treasury_sweeps_payment_id_key;
ALTER TABLE treasury_sweeps ADD CONSTRAINT treasury_sweeps_payment_id_key UNIQUE (tenant_id, payment_id);
DROP INDEX treasury_sweeps_account_idx;
CREATE INDEX treasury_sweeps_account_idx ON treasury_sweeps (tenant_id, account_id, id);
DROP INDEX treasury_sweeps_rule_idx;
CREATE INDEX treasury_sweeps_rule_idx ON treasury_sweeps (tenant_id, rule_id, id) WHERE rule_id IS NOT NULL;
ALTER TABLE treasury_sweeps ADD CONSTRAINT treasury_sweeps_account_id_fkey
    FOREIGN KEY (tenant_id, account_id) REFERENCES treasury_accounts (tenant_id, id);
ALTER TABLE treasury_sweeps ADD CONSTRAINT treasury_sweeps_source_bucket_id_fkey
    FOREIGN KEY (tenant_id, source_bucket_id) REFERENCES treasury_buckets (tenant_id, id);
ALTER TABLE treasury_sweeps ADD CONSTRAINT treasury_sweeps_dest_bucket_id_fkey
    FOREIGN KEY (tenant_id, dest_bucket_id) REFERENCES treasury_buckets (tenant_id, id);
ALTER TABLE treasury_sweeps ADD CONSTRAINT treasury_sweeps_rule_id_fkey
    FOREIGN KEY (tenant_id, rule_id) REFERENCES treasury_rules (tenant_id, id);
ALTER TABLE treasury_sweeps ADD CONSTRAINT treasury_sweeps_payment_id_fkey
    FOREIGN KEY (tenant_id, payment_id) REFERENCES safe_payments (tenant_id, id);
