DROP TABLE IF EXISTS rate_limit_windows;
DROP TABLE IF EXISTS rate_limit_buckets;
