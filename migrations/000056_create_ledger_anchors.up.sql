-- ledger_anchors records each Merkle root over the ledger's hash-chain heads that the relayer
-- wrote on chain: the heads it covers (with each chain's position and transfer-sequence range),
-- the transaction's payload, and, once mined, the transaction and its block. At most one anchor
-- is unmined at a time, so two passes (or two replicas) never anchor the same heads twice.
CREATE TABLE ledger_anchors (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    created_at        timestamptz NOT NULL,
    root              bytea NOT NULL CHECK (length(root) = 32),
    heads             jsonb NOT NULL CHECK (jsonb_typeof(heads) = 'array' AND jsonb_array_length(heads) > 0),
    chain_environment text NOT NULL CHECK (chain_environment IN ('TEST', 'LIVE')),
    chain_id          bigint NOT NULL CHECK (chain_id > 0),
    payload           bytea NOT NULL,
    tx_hash           text CHECK (tx_hash ~ '^0x[0-9a-f]{64}$'),
    block_number      bigint CHECK (block_number >= 0),
    mined_at          timestamptz,
    CHECK ((mined_at IS NULL) = (block_number IS NULL)),
    CHECK (mined_at IS NULL OR tx_hash IS NOT NULL)
);

CREATE UNIQUE INDEX ledger_anchors_one_open ON ledger_anchors ((true)) WHERE mined_at IS NULL;
