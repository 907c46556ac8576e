DROP INDEX wallets_env_chain_idx;
DROP TABLE chain_index_cursors;
