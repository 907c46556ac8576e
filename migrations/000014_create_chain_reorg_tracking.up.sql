-- Reorg tracking for the chain indexers (docs/chain.md, Confirmations and reorgs). Each indexer
-- records the hash of the last block of every range it committed and of every block it applied
-- something from; the next pass compares the recorded hashes with the chain's and, on a
-- mismatch, undoes what the dropped blocks applied and indexes again from the fork point.
-- items names what a block applied: the ledger mirror's transfer ids, the escrow indexer's
-- event keys ({txHash}:{logIndex}). Rows without items below the cursor are pruned.
CREATE TABLE chain_indexed_blocks (
    indexer      text NOT NULL CHECK (indexer IN ('LEDGER_MIRROR', 'CLAIM_ESCROW')),
    environment  text NOT NULL CHECK (environment IN ('TEST', 'LIVE')),
    chain_id     bigint NOT NULL CHECK (chain_id > 0),
    block_number bigint NOT NULL CHECK (block_number >= 0),
    block_hash   text NOT NULL CHECK (block_hash ~ '^0x[0-9a-f]{64}$'),
    items        text[] NOT NULL DEFAULT '{}',
    recorded_at  timestamptz NOT NULL,
    PRIMARY KEY (indexer, environment, chain_id, block_number)
);

-- Items a background pass could not process (docs/security.md, Background passes): the pass
-- logs the failure, records it here and carries on with the rest. A RETRYING item is tried
-- again by later passes; after max attempts (or at once for a failure that cannot change, such
-- as an unpostable chain log) it is DEAD and passes skip it until an operator clears the row.
CREATE TABLE background_failures (
    pass            text NOT NULL CHECK (pass IN ('claim.expiry', 'chain.index', 'claim.index')),
    item            text NOT NULL CHECK (item <> ''),
    environment     text CHECK (environment IN ('TEST', 'LIVE')),
    status          text NOT NULL CHECK (status IN ('RETRYING', 'DEAD')),
    attempts        integer NOT NULL CHECK (attempts > 0),
    last_error      text NOT NULL,
    first_failed_at timestamptz NOT NULL,
    last_failed_at  timestamptz NOT NULL,
    PRIMARY KEY (pass, item)
);
CREATE INDEX background_failures_status_idx ON background_failures (status, last_failed_at);
