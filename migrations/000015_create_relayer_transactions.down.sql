DROP TABLE relayer_transactions;
