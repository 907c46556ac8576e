-- Every transaction the relayer sent (adapters/postgres RelayerTransactions): enough to send the
-- same payload again under the same nonce with higher fees when it is stuck in the pool
-- (RELAYER_BUMP_AFTER, RELAYER_MAX_FEE_GWEI), and to answer a receipt for any hash of a nonce.
-- A nonce is settled once one of its transactions is in a block.
CREATE TABLE relayer_transactions (
    chain_id    bigint NOT NULL,
    address     text NOT NULL,
    nonce       bigint NOT NULL CHECK (nonce >= 0),
    tx_hash     text NOT NULL,
    to_address  text,
    value_wei   numeric NOT NULL CHECK (value_wei >= 0),
    data        bytea NOT NULL,
    gas         bigint NOT NULL CHECK (gas > 0),
    gas_fee_cap numeric NOT NULL CHECK (gas_fee_cap >= 0),
    gas_tip_cap numeric NOT NULL CHECK (gas_tip_cap >= 0),
    sent_at     timestamptz NOT NULL,
    settled_at  timestamptz,
    PRIMARY KEY (chain_id, tx_hash)
);

CREATE INDEX relayer_transactions_nonce_idx ON relayer_transactions (chain_id, address, nonce);
CREATE INDEX relayer_transactions_unsettled_idx ON relayer_transactions (chain_id, address, nonce)
    WHERE settled_at IS NULL;
