DROP TABLE relayer_tx_counts;
