-- A Safe payment about to be sent holds its USDC on its wallet's ledger mirror (a pending debit
-- of wallet:{id}:onchain), so a card authorization decided while the payment is on its way
-- cannot approve against USDC the payment takes. One row per open hold: the execution job
-- writes it with the hold, and the ledger mirror deletes it (voiding the hold) in the unit of
-- work that books the payment's Transfer log; a payment that fails unsent deletes it too. The
-- mirror finds a log's hold by wallet, amount and recipient, lowest Safe nonce first: the Safe
-- executes nonces in order, and a transaction hash is no key (a resent transaction has another).
CREATE TABLE safe_payment_holds (
    tenant_id         text NOT NULL,
    payment_id        text NOT NULL,
    wallet_id         text NOT NULL,
    safe_nonce        bigint NOT NULL,
    amount_base_units bigint NOT NULL CHECK (amount_base_units > 0),
    recipient         text NOT NULL,
    transfer_id       text NOT NULL,
    created_at        timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, payment_id)
);

CREATE INDEX safe_payment_holds_wallet_idx ON safe_payment_holds (tenant_id, wallet_id, safe_nonce);

-- On a Citus database whose payments are distributed already, the new table joins their shard
-- group before it keys to them (Citus refuses a key from a local table to a distributed one).
DO $$
DECLARE
    payments_distributed boolean := false;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        EXECUTE $q$SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'safe_payments'::regclass)$q$
            INTO payments_distributed;
    END IF;
    IF payments_distributed THEN
        EXECUTE $q$SELECT create_distributed_table('safe_payment_holds', 'tenant_id', colocate_with => 'safe_payments')$q$;
    END IF;
END
$$;

ALTER TABLE safe_payment_holds ADD CONSTRAINT safe_payment_holds_payment_id_fkey
    FOREIGN KEY (tenant_id, payment_id) REFERENCES safe_payments (tenant_id, id);
