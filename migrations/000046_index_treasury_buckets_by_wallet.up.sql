-- The payment policy gate asks, for every Safe payment it evaluates, whether the source wallet
-- is a treasury bucket (a treasury_account policy then applies): one bucket per wallet.
CREATE UNIQUE INDEX treasury_buckets_wallet ON treasury_buckets (wallet_id);
