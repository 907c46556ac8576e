DROP TABLE handles;
DROP TABLE safe_payments;
DROP TABLE wallets;
