DROP TABLE background_failures;
DROP TABLE chain_indexed_blocks;
