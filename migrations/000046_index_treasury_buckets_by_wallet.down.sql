DROP INDEX IF EXISTS treasury_buckets_wallet;
