-- The ledger mirror's indexer (docs/chain.md): one cursor per environment and chain. Every USDC
-- Transfer log of the environment's wallets in blocks below next_block has been posted to the
-- ledger; the cursor moves in the same transaction as those postings. Per-log idempotency is the
-- ledger's own: each log is one transfer with reference chain:{chainId}:{txHash}:{logIndex}.
CREATE TABLE chain_index_cursors (
    environment text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    chain_id    bigint NOT NULL CHECK (chain_id > 0),
    next_block  bigint NOT NULL CHECK (next_block >= 0),
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (environment, chain_id)
);

-- The indexer lists an environment's wallets on one chain each run.
CREATE INDEX wallets_env_chain_idx ON wallets (environment, chain_id, id);
