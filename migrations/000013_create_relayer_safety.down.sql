DROP TABLE relayer_nonces;
DROP INDEX safe_payments_executing_idx;
DROP TABLE relayer_tx_counts;
